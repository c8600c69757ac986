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
// file: a shorthand, or the table of its two fields.
func (EnablePartial) JSONSchema() map[string]any {
	shorthands := make([]any, len(enumEnable))
	for i, s := range enumEnable {
		shorthands[i] = s
	}
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "boolean", "description": "true: on, any directive may toggle it; false: off, likewise."},
		map[string]any{"enum": shorthands, "description": "on and off as true and false; always: on and locked; explicit: off unless a directive names it."},
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"state": map[string]any{
					"description": "Whether the tool is offered to the model; inherited from '*' when left out, else true.",
					"anyOf":       []any{map[string]any{"type": "boolean"}, map[string]any{"enum": shorthands}},
				},
				"allow_toggle": map[string]any{
					"description": "Which run-time directives may turn the tool on or off: any (the default), never, if_named, if_named_or_group.",
					"anyOf":       []any{AllowToggle("").JSONSchema(), map[string]any{"type": "boolean"}},
				},
			},
			"additionalProperties": false,
		},
	}}
}

// JSONSchema describes a toggle policy in the JSON Schema of the config
// file.
func (AllowToggle) JSONSchema() map[string]any {
	names := make([]any, len(enumAllowToggle))
	for i, n := range enumAllowToggle {
		names[i] = n
	}
	return map[string]any{"enum": names}
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
