package bench

// FloorLayer is what the floor decodes a layer into: config.Partial's
// shape as go-toml can decode it, with pointers for optional values and
// any for the fields that take several forms (command, enable, type, list
// strategies).
type (
	FloorLayer struct {
		Tools      map[string]*floorTool   `toml:"tools"`
		MCPServers map[string]*floorServer `toml:"mcp_servers"`
		Discover   struct {
			Dirs any `toml:"dirs"`
		} `toml:"discover"`
		Unset []string `toml:"unset"`
	}
	floorTool struct {
		Source      *string                    `toml:"source"`
		Command     any                        `toml:"command"`
		Enable      any                        `toml:"enable"`
		Summary     *string                    `toml:"summary"`
		Description *string                    `toml:"description"`
		Examples    *string                    `toml:"examples"`
		Run         *string                    `toml:"run"`
		Result      *string                    `toml:"result"`
		Parameters  map[string]*floorParameter `toml:"parameters"`
		Options     map[string]any             `toml:"options"`
		Questions   map[string]*struct {
			Target *string `toml:"target"`
			Answer any     `toml:"answer"`
		} `toml:"questions"`
	}
	floorParameter struct {
		Type        any                        `toml:"type"`
		Required    *bool                      `toml:"required"`
		Default     any                        `toml:"default"`
		Enum        any                        `toml:"enum"`
		Summary     *string                    `toml:"summary"`
		Description *string                    `toml:"description"`
		Examples    any                        `toml:"examples"`
		Items       *floorParameter            `toml:"items"`
		Properties  map[string]*floorParameter `toml:"properties"`
	}
	floorServer struct {
		Command           *string           `toml:"command"`
		Args              any               `toml:"args"`
		Env               map[string]string `toml:"env"`
		Cwd               *string           `toml:"cwd"`
		Optional          *bool             `toml:"optional"`
		StartupTimeoutSec *float64          `toml:"startup_timeout_sec"`
		ToolTimeoutSec    *float64          `toml:"tool_timeout_sec"`
		Checksum          *string           `toml:"checksum"`
	}
)

// KoanfConfig is what koanf unmarshals the merged layers into.
type KoanfConfig struct {
	Tools map[string]struct {
		Source      string                    `koanf:"source"`
		Command     any                       `koanf:"command"`
		Enable      any                       `koanf:"enable"`
		Summary     string                    `koanf:"summary"`
		Description string                    `koanf:"description"`
		Run         string                    `koanf:"run"`
		Result      string                    `koanf:"result"`
		Parameters  map[string]map[string]any `koanf:"parameters"`
		Options     map[string]any            `koanf:"options"`
		Questions   map[string]map[string]any `koanf:"questions"`
	} `koanf:"tools"`
	MCPServers map[string]struct {
		Command string            `koanf:"command"`
		Args    []string          `koanf:"args"`
		Env     map[string]string `koanf:"env"`
	} `koanf:"mcp_servers"`
	Discover struct {
		Dirs []string `koanf:"dirs"`
	} `koanf:"discover"`
}
