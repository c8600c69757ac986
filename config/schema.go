package config

// JSONSchema describes a source in the JSON Schema of the config file.
func (Source) JSONSchema() map[string]any {
	return map[string]any{
		"type":     "string",
		"pattern":  `^(builtin|local(\..+)?|mcp\..+)$`,
		"examples": []any{"builtin", "local", "local.<tool>", "mcp.<server>", "mcp.<server>.<tool>"},
	}
}

// JSONSchema describes a command in the JSON Schema of the config file.
func (Command) JSONSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "string", "minLength": 1},
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"program": map[string]any{"type": "string", "minLength": 1},
				"args":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				"shell":   map[string]any{"type": "boolean"},
			},
			"required":             []any{"program"},
			"additionalProperties": false,
		},
	}}
}

// JSONSchema describes an enable setting in the JSON Schema of the config
// file.
func (Enable) JSONSchema() map[string]any {
	states := []any{"on", "off", "explicit", "always"}
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "boolean"},
		map[string]any{"enum": states},
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"state":        map[string]any{"enum": states},
				"allow_toggle": map[string]any{"type": "boolean"},
			},
			"required":             []any{"state"},
			"additionalProperties": false,
		},
	}}
}

// JSONSchema describes a type list in the JSON Schema of the config file.
func (Types) JSONSchema() map[string]any {
	names := make([]any, len(jsonTypes))
	for i, n := range jsonTypes {
		names[i] = n
	}
	return map[string]any{"anyOf": []any{
		map[string]any{"enum": names},
		map[string]any{"type": "array", "items": map[string]any{"enum": names}, "minItems": 1, "uniqueItems": true},
	}}
}
