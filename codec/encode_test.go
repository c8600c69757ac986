package codec_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// allUnsetServer is an MCP server entry whose every field is unset.
func allUnsetServer() config.MCPServerPartial {
	return config.MCPServerPartial{
		Command:           layertest.UnsetValue[secret.String](),
		Args:              partial.List[secret.String]{Base: partial.BaseDefault},
		Env:               partial.Map[partial.Value[secret.String]]{Reset: true},
		EnvVars:           partial.List[string]{Base: partial.BaseDefault},
		Cwd:               layertest.UnsetValue[secret.String](),
		URL:               layertest.UnsetValue[secret.String](),
		Headers:           partial.Map[partial.Value[secret.String]]{Reset: true},
		BearerTokenEnvVar: layertest.UnsetValue[string](),
		AllowHTTP:         layertest.UnsetValue[bool](),
		InProcess:         layertest.UnsetValue[bool](),
		Enabled:           layertest.UnsetValue[bool](),
		Optional:          layertest.UnsetValue[bool](),
		StartupTimeoutSec: layertest.UnsetValue[float64](),
		ToolTimeoutSec:    layertest.UnsetValue[float64](),
		Expose:            layertest.UnsetValue[config.Expose](),
		EnabledTools:      layertest.UnsetValue[config.ToolNames](),
		DisabledTools:     layertest.UnsetValue[config.ToolNames](),
		Load:              layertest.UnsetValue[config.LoadMode](),
		Namespace:         layertest.UnsetValue[string](),
		DisabledPrompts:   partial.List[string]{Base: partial.BaseDefault},
		PromptNames:       partial.Map[partial.Value[string]]{Reset: true},
		ToolNames:         layertest.UnsetValue[config.NameScheme](),
		OAuth:             partial.Nested[config.OAuthPartial]{State: partial.Unset},
	}
}

func TestEncodePartial(t *testing.T) {
	redefined := layertest.AllUnsetTool()
	redefined.Run = partial.Replace(config.RunRule{Mode: config.RunEdit})
	tests := []struct {
		name string
		p    config.Partial
		toml string
		json string
	}{
		{
			name: "empty layer",
			p:    config.Partial{},
			toml: "",
			json: "{}\n",
		},
		{
			name: "unset list sorted first",
			p: config.Partial{
				Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
					"zeta":  {Run: partial.List[config.RunRule]{Base: partial.BaseDefault}},
					"alpha": {Summary: layertest.UnsetValue[string](), Run: partial.Replace(config.RunRule{Mode: config.RunEdit})},
				}},
				MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{"fs": nil}},
				Discover:   config.DiscoverPartial{Dirs: partial.List[string]{Base: partial.BaseDefault}},
			},
			toml: `unset = ["discover.dirs", "mcp_servers.fs", "tools.alpha.summary", "tools.zeta.run"]

[tools.alpha]
run = "edit"

[tools.zeta]
`,
			json: `{
  "unset": [
    "discover.dirs",
    "mcp_servers.fs",
    "tools.alpha.summary",
    "tools.zeta.run"
  ],
  "tools": {
    "alpha": {
      "run": "edit"
    },
    "zeta": {}
  }
}
`,
		},
		{
			name: "list forms",
			p: config.Partial{
				MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
					"a": {Args: partial.Replace(secret.Plains("x", "y")...)},
					"b": {Args: partial.Append(secret.Plains("x")...)},
					"c": {Args: partial.Prepend(secret.Plains("h")...)},
					"d": {Args: partial.List[secret.String]{Items: secret.Plains("h", "t"), Before: 1}},
					"e": {Args: partial.List[secret.String]{Base: partial.BaseEmpty, Items: secret.Plains("x", "y"), Dedup: true}},
					"f": {Args: partial.List[secret.String]{Base: partial.BaseDefault, Items: secret.Plains("x")}},
					"g": {Args: partial.List[secret.String]{Items: []secret.String{}, Dedup: true}},
					"h": {Args: partial.List[secret.String]{Items: secret.Plains("h", "t"), Before: 1, Dedup: true}},
				}},
				Discover: config.DiscoverPartial{Dirs: partial.Append("d")},
			},
			toml: `unset = ["mcp_servers.f.args"]

[mcp_servers.a]
args = ["x", "y"]

[mcp_servers.b]
args = { value = ["x"], strategy = "append" }

[mcp_servers.c]
args = { value = ["h"], strategy = "prepend" }

[mcp_servers.d]
args = { prepend = ["h"], append = ["t"] }

[mcp_servers.e]
args = { value = ["x", "y"], strategy = "replace", dedup = true }

[mcp_servers.f]
args = { value = ["x"], strategy = "append" }

[mcp_servers.g]
args = { value = [], strategy = "append", dedup = true }

[mcp_servers.h]
args = { prepend = ["h"], append = ["t"], dedup = true }

[discover]
dirs = ["d"]
`,
			json: `{
  "unset": [
    "mcp_servers.f.args"
  ],
  "mcp_servers": {
    "a": {
      "args": [
        "x",
        "y"
      ]
    },
    "b": {
      "args": {
        "value": [
          "x"
        ],
        "strategy": "append"
      }
    },
    "c": {
      "args": {
        "value": [
          "h"
        ],
        "strategy": "prepend"
      }
    },
    "d": {
      "args": {
        "prepend": [
          "h"
        ],
        "append": [
          "t"
        ]
      }
    },
    "e": {
      "args": {
        "value": [
          "x",
          "y"
        ],
        "strategy": "replace",
        "dedup": true
      }
    },
    "f": {
      "args": {
        "value": [
          "x"
        ],
        "strategy": "append"
      }
    },
    "g": {
      "args": {
        "value": [],
        "strategy": "append",
        "dedup": true
      }
    },
    "h": {
      "args": {
        "prepend": [
          "h"
        ],
        "append": [
          "t"
        ],
        "dedup": true
      }
    }
  },
  "discover": {
    "dirs": [
      "d"
    ]
  }
}
`,
		},
		{
			name: "list strategies against the field's default strategy",
			p: config.Partial{Discover: config.DiscoverPartial{Dirs: partial.Replace("r")}, Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"t": {Parameters: partial.Map[config.ParameterPartial]{Entries: map[string]*config.ParameterPartial{
					"p": {Enum: partial.Replace[any]("a", int64(1)), Examples: partial.Prepend[any](true)},
				}}},
			}}},
			toml: `[tools.t.parameters.p]
enum = ["a", 1]
examples = { value = [true], strategy = "prepend" }

[discover]
dirs = { value = ["r"], strategy = "replace" }
`,
			json: `{
  "tools": {
    "t": {
      "parameters": {
        "p": {
          "enum": [
            "a",
            1
          ],
          "examples": {
            "value": [
              true
            ],
            "strategy": "prepend"
          }
        }
      }
    }
  },
  "discover": {
    "dirs": {
      "value": [
        "r"
      ],
      "strategy": "replace"
    }
  }
}
`,
		},
		{
			name: "removed map entries",
			p: config.Partial{
				Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
					"old": nil,
					"grep": {
						Options:    partial.Map[partial.Any]{Entries: map[string]*partial.Any{"r": nil, "keep": layertest.Ptr(partial.AnyOf("k"))}},
						Parameters: partial.Map[config.ParameterPartial]{Entries: map[string]*config.ParameterPartial{"p": nil}},
						Questions:  partial.Map[config.QuestionPartial]{Entries: map[string]*config.QuestionPartial{"q": nil}},
					},
				}},
				MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
					"fs": {Env: partial.Map[partial.Value[secret.String]]{Entries: map[string]*partial.Value[secret.String]{"OLD": nil, "LOG": layertest.Ptr(partial.Of(secret.Plain("1")))}}},
				}},
			},
			toml: `unset = ["mcp_servers.fs.env.OLD", "tools.grep.options.r", "tools.grep.parameters.p", "tools.grep.questions.q", "tools.old"]

[tools.grep.options]
keep = "k"

[mcp_servers.fs.env]
LOG = "1"
`,
			json: `{
  "unset": [
    "mcp_servers.fs.env.OLD",
    "tools.grep.options.r",
    "tools.grep.parameters.p",
    "tools.grep.questions.q",
    "tools.old"
  ],
  "tools": {
    "grep": {
      "options": {
        "keep": "k"
      }
    }
  },
  "mcp_servers": {
    "fs": {
      "env": {
        "LOG": "1"
      }
    }
  }
}
`,
		},
		{
			name: "entry with every field unset is one table-level unset",
			p: config.Partial{
				Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
					"gone": layertest.Ptr(layertest.AllUnsetTool()),
					"grep": &redefined,
					"one":  {Description: layertest.UnsetValue[string]()},
				}},
				MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
					"fs": layertest.Ptr(allUnsetServer()),
				}},
			},
			toml: `unset = ["mcp_servers.fs", "tools.gone", "tools.grep", "tools.one.description"]

[tools.gone]

[tools.grep]
run = "edit"

[tools.one]

[mcp_servers.fs]
`,
			json: `{
  "unset": [
    "mcp_servers.fs",
    "tools.gone",
    "tools.grep",
    "tools.one.description"
  ],
  "tools": {
    "gone": {},
    "grep": {
      "run": "edit"
    },
    "one": {}
  },
  "mcp_servers": {
    "fs": {}
  }
}
`,
		},
		{
			name: "empty entries are kept",
			p: config.Partial{
				Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
					"": {},
					"t": {
						Parameters: partial.Map[config.ParameterPartial]{Entries: map[string]*config.ParameterPartial{
							"p": {},
							"q": {Items: partial.NestedOf(config.ParameterPartial{})},
						}},
						Questions: partial.Map[config.QuestionPartial]{Entries: map[string]*config.QuestionPartial{"ask": {}}},
					},
				}},
				MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{"fs": {}}},
			},
			toml: `[tools.'']

[tools.t.parameters.p]

[tools.t.parameters.q.items]

[tools.t.questions.ask]

[mcp_servers.fs]
`,
			json: `{
  "tools": {
    "": {},
    "t": {
      "parameters": {
        "p": {},
        "q": {
          "items": {}
        }
      },
      "questions": {
        "ask": {}
      }
    }
  },
  "mcp_servers": {
    "fs": {}
  }
}
`,
		},
		{
			name: "multi-line and escaped strings",
			p: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"doc": {
					Summary:     partial.Of("line1\nline2\n"),
					Description: partial.Of("it's\nfine'"),
					Examples:    partial.Of("say \"hi\"\tnow\\"),
				},
			}}},
			toml: `[tools.doc]
summary = '''
line1
line2
'''
description = "it's\nfine'"
examples = "say \"hi\"\tnow\\"
`,
			json: `{
  "tools": {
    "doc": {
      "summary": "line1\nline2\n",
      "description": "it's\nfine'",
      "examples": "say \"hi\"\tnow\\"
    }
  }
}
`,
		},
		{
			name: "keys that need quotes",
			p: config.Partial{
				Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
					"*":       {Run: partial.Replace(config.RunRule{Mode: config.RunEdit})},
					"a.b":     {Summary: partial.Of("dotted"), Description: layertest.UnsetValue[string]()},
					"my tool": {Enable: partial.NestedOf(config.EnablePartial{State: partial.Of(false), AllowToggle: partial.Of(config.ToggleAny)})},
					"grep": {
						Source:  partial.Of(config.Source{Kind: config.SourceMCP, Server: "my.server", Tool: "grep"}),
						Options: partial.Map[partial.Any]{Entries: map[string]*partial.Any{"x.y": layertest.Ptr(partial.AnyOf(true))}},
					},
				}},
				MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
					"my.server": {Env: partial.Map[partial.Value[secret.String]]{Entries: map[string]*partial.Value[secret.String]{"MY VAR": layertest.Ptr(partial.Of(secret.Plain("1")))}}},
				}},
			},
			toml: `unset = ["tools.'a.b'.description"]

[tools.'*']
run = "edit"

[tools.'a.b']
summary = "dotted"

[tools.grep]
source = "mcp.'my.server'.grep"

[tools.grep.options]
'x.y' = true

[tools.'my tool']
enable = { state = false, allow_toggle = "any" }

[mcp_servers.'my.server'.env]
'MY VAR' = "1"
`,
			json: `{
  "unset": [
    "tools.'a.b'.description"
  ],
  "tools": {
    "*": {
      "run": "edit"
    },
    "a.b": {
      "summary": "dotted"
    },
    "grep": {
      "source": "mcp.'my.server'.grep",
      "options": {
        "x.y": true
      }
    },
    "my tool": {
      "enable": {
        "state": false,
        "allow_toggle": "any"
      }
    }
  },
  "mcp_servers": {
    "my.server": {
      "env": {
        "MY VAR": "1"
      }
    }
  }
}
`,
		},
		{
			name: "tool with every kind of field",
			p: config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{
				"grep": {
					Source:  partial.Of(config.Source{Kind: config.SourceLocal, Tool: "search"}),
					Command: partial.Of(config.Command{Program: "jp-tools", Args: []string{"{{tool}}", "two words", "it's"}}),
					Enable:  partial.NestedOf(config.EnablePartial{State: partial.Of(false), AllowToggle: partial.Of(config.ToggleNever)}),
					Run:     partial.Replace(config.RunRule{Mode: config.RunUnattended}),
					Result:  partial.Replace(config.ResultRule{Mode: config.ResultAsk}),
					Parameters: partial.Map[config.ParameterPartial]{Entries: map[string]*config.ParameterPartial{
						"path": {
							Type:     partial.Of(config.Types{"string", "null"}),
							Required: partial.Of(true),
							Default:  partial.Of[any]("."),
							Items:    partial.NestedOf(config.ParameterPartial{Type: partial.Of(config.Types{"string"})}),
							Properties: partial.Map[config.ParameterPartial]{Entries: map[string]*config.ParameterPartial{
								"depth": {Type: partial.Of(config.Types{"integer"})},
							}},
						},
					}},
					Options: partial.Map[partial.Any]{Entries: map[string]*partial.Any{
						"depth":  layertest.Ptr(partial.AnyOf(int64(3))),
						"empty":  layertest.Ptr(partial.AnyOf(map[string]any{})),
						"limits": layertest.Ptr(partial.AnyOf(map[string]any{"max": 1.5, "list": []any{"a", map[string]any{"k": false}}})),
					}},
					Questions: partial.Map[config.QuestionPartial]{Entries: map[string]*config.QuestionPartial{
						"apply": {Target: partial.Of(config.TargetAssistant), Answer: partial.Of[any](map[string]any{"ok": true})},
					}},
				},
				"sh": {Command: partial.Of(config.Command{Program: "echo", Args: []string{"$HOME"}, Shell: true})},
			}}},
			toml: `[tools.grep]
source = "local.search"
command = "jp-tools {{tool}} 'two words' 'it'\\''s'"
enable = { state = false, allow_toggle = "never" }
run = "unattended"
result = "ask"

[tools.grep.parameters.path]
type = ["string", "null"]
required = true
default = "."

[tools.grep.parameters.path.items]
type = "string"

[tools.grep.parameters.path.properties.depth]
type = "integer"

[tools.grep.options]
depth = 3

[tools.grep.options.empty]

[tools.grep.options.limits]
list = ["a", { k = false }]
max = 1.5

[tools.grep.questions.apply]
target = "assistant"
answer = { ok = true }

[tools.sh]
command = { args = ["$HOME"], program = "echo", shell = true }
`,
			json: `{
  "tools": {
    "grep": {
      "source": "local.search",
      "command": "jp-tools {{tool}} 'two words' 'it'\\''s'",
      "enable": {
        "state": false,
        "allow_toggle": "never"
      },
      "run": "unattended",
      "result": "ask",
      "parameters": {
        "path": {
          "type": [
            "string",
            "null"
          ],
          "required": true,
          "default": ".",
          "items": {
            "type": "string"
          },
          "properties": {
            "depth": {
              "type": "integer"
            }
          }
        }
      },
      "options": {
        "depth": 3,
        "empty": {},
        "limits": {
          "list": [
            "a",
            {
              "k": false
            }
          ],
          "max": 1.5
        }
      },
      "questions": {
        "apply": {
          "target": "assistant",
          "answer": {
            "ok": true
          }
        }
      }
    },
    "sh": {
      "command": {
        "args": [
          "$HOME"
        ],
        "program": "echo",
        "shell": true
      }
    }
  }
}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, out := range []struct {
				format partial.Format
				want   string
			}{{partial.TOML, tt.toml}, {partial.JSON, tt.json}} {
				got, err := codec.Encode(&tt.p, out.format)
				if err != nil {
					t.Fatalf("Encode %s: %v", out.format, err)
				}
				if diff := cmp.Diff(out.want, string(got)); diff != "" {
					t.Errorf("Encode %s mismatch (-want +got):\n%s", out.format, diff)
				}
				back, err := layertest.Decode(t, "encoded", string(got), out.format)
				if err != nil {
					t.Fatalf("decode of the %s output: %v\n%s", out.format, err, got)
				}
				if diff := cmp.Diff(tt.p, back); diff != "" {
					t.Errorf("decode(encode(x)) in %s mismatch (-want +got):\n%s", out.format, diff)
				}
			}
		})
	}
}

func TestEncodePartialByValue(t *testing.T) {
	p := config.Partial{Tools: partial.Map[config.ToolPartial]{Entries: map[string]*config.ToolPartial{"a": {Run: partial.Replace(config.RunRule{Mode: config.RunAsk})}}}}
	byPointer, err := codec.Encode(&p, partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	byValue, err := codec.Encode(p, partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(byPointer), string(byValue)); diff != "" {
		t.Errorf("Encode by value differs from Encode by pointer (-want +got):\n%s", diff)
	}
	nilOut, err := codec.Encode((*config.Partial)(nil), partial.TOML)
	if err != nil || len(nilOut) != 0 {
		t.Errorf("Encode(nil) = %q, %v; want empty, nil", nilOut, err)
	}
}

func TestEncodeYAMLIsRefused(t *testing.T) {
	_, err := codec.Encode(&config.Partial{}, partial.YAML)
	want := "strata: writing YAML is not supported; use TOML or JSON"
	if err == nil || err.Error() != want {
		t.Errorf("Encode YAML error = %v, want %q", err, want)
	}
}

func TestEncodeResolvedConfig(t *testing.T) {
	withTools := config.Default()
	withTools.Tools["grep"] = config.Tool{
		Summary:    "Search.",
		Command:    config.Command{Program: "rg", Args: []string{"--json"}},
		Parameters: map[string]config.Parameter{"p": {Required: layertest.Ptr(false), Enum: []any{"a"}}},
		Options:    map[string]any{"n": int64(2)},
	}
	withTools.MCPServers = config.MCPServers{"fs": {Command: secret.Plain("npx"), ToolTimeoutSec: 60}}
	tests := []struct {
		name string
		c    config.Config
		toml string
		json string
	}{
		{
			name: "zero config",
			c:    config.Config{},
			toml: "",
			json: "{}\n",
		},
		{
			name: "defaults",
			c:    config.Default(),
			toml: `[tools.'*']
enable = { state = true, allow_toggle = "any" }
run = "ask"
result = "unattended"
`,
			json: `{
  "tools": {
    "*": {
      "enable": {
        "state": true,
        "allow_toggle": "any"
      },
      "run": "ask",
      "result": "unattended"
    }
  }
}
`,
		},
		{
			name: "zero fields left out, false pointers kept",
			c:    withTools,
			toml: `[tools.'*']
enable = { state = true, allow_toggle = "any" }
run = "ask"
result = "unattended"

[tools.grep]
command = "rg --json"
summary = "Search."

[tools.grep.parameters.p]
required = false
enum = ["a"]

[tools.grep.options]
n = 2

[mcp_servers.fs]
command = "npx"
tool_timeout_sec = 60.0
`,
			json: `{
  "tools": {
    "*": {
      "enable": {
        "state": true,
        "allow_toggle": "any"
      },
      "run": "ask",
      "result": "unattended"
    },
    "grep": {
      "command": "rg --json",
      "summary": "Search.",
      "parameters": {
        "p": {
          "required": false,
          "enum": [
            "a"
          ]
        }
      },
      "options": {
        "n": 2
      }
    }
  },
  "mcp_servers": {
    "fs": {
      "command": "npx",
      "tool_timeout_sec": 60.0
    }
  }
}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, out := range []struct {
				format partial.Format
				want   string
			}{{partial.TOML, tt.toml}, {partial.JSON, tt.json}} {
				got, err := codec.Encode(tt.c, out.format)
				if err != nil {
					t.Fatalf("Encode %s: %v", out.format, err)
				}
				if diff := cmp.Diff(out.want, string(got)); diff != "" {
					t.Errorf("Encode %s mismatch (-want +got):\n%s", out.format, diff)
				}
				if tt.c.Tools == nil {
					continue // the zero config is not what finalizing anything gives
				}
				// A written config is a layer that gives it back.
				p := layertest.MustDecode(t, "encoded", string(got), out.format)
				c, err := config.Finalize(&p)
				if err != nil {
					t.Fatalf("Finalize: %v", err)
				}
				if diff := cmp.Diff(tt.c, c); diff != "" {
					t.Errorf("Finalize(decode(encode(c))) in %s mismatch (-want +got):\n%s", out.format, diff)
				}
			}
		})
	}
}

// TestEncodeReplacedListWithHead: a list that replaces the lower layers'
// and has a head (as a layer built in Go may) is written as one
// replacement, head first: nothing lies between head and tail.
func TestEncodeReplacedListWithHead(t *testing.T) {
	p := config.Partial{MCPServers: partial.Map[config.MCPServerPartial]{Entries: map[string]*config.MCPServerPartial{
		"s": {Args: partial.List[secret.String]{Base: partial.BaseEmpty, Items: secret.Plains("h", "t"), Before: 1}},
	}}}
	got, err := codec.Encode(&p, partial.TOML)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("[mcp_servers.s]\nargs = [\"h\", \"t\"]\n", string(got)); diff != "" {
		t.Errorf("Encode mismatch (-want +got):\n%s", diff)
	}
}
