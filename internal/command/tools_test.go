package command

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

func TestCheckTools(t *testing.T) {
	tests := []struct {
		name  string
		c     config.Config
		mount partial.Path
		want  []string
	}{
		{
			name: "shell templates that cannot be quoted, and a model's program",
			c: config.Config{Tools: config.Tools{
				"h": {Command: config.Command{Program: "cat <<EOF\n{{tool.arguments.v}}\nEOF", Shell: true}},
				"p": {Command: config.Command{Program: "{{tool.arguments.v}}"}},
				"q": {Command: config.Command{Program: "printf %s {{tool.arguments.v}}", Shell: true}},
			}},
			want: []string{
				"tools.h.command: {{tool.arguments.v}} is in the body of a here-document, where a line of the value could end the document and $ or ` in it would run (line 2 of the shell text); pass the value as an argument instead, as in printf '%s\\n' {{tool.arguments.v}} | cat",
				"tools.p.command: {{tool.arguments.v}} is in the name of the program, which the model would choose; name the program in the template, and pass the value as an argument",
			},
		},
		{
			name:  "at the host's key paths",
			c:     config.Config{Tools: config.Tools{"p": {Command: config.Command{Program: "{{tool.arguments.v}}"}}}},
			mount: partial.Path{"assistant"},
			want: []string{
				"assistant.tools.p.command: {{tool.arguments.v}} is in the name of the program, which the model would choose; name the program in the template, and pass the value as an argument",
			},
		},
		{
			name: "builtins, MCP tools and the defaults entry run no template",
			c: config.Config{Tools: config.Tools{
				"*":   {},
				"b":   {Source: config.Source{Kind: config.SourceBuiltin}},
				"m":   {Source: config.Source{Kind: config.SourceMCP, Server: "fs"}, Command: config.Command{Program: "{{tool.arguments.v}}"}},
				"ok":  {Command: config.Command{Program: "grep", Args: []string{"--", "{{tool.arguments.q}}"}}},
				"sh":  {Command: config.Command{Program: "grep -- '{{tool.arguments.q}}'", Shell: true}},
				"nil": {},
			}, MCPServers: config.MCPServers{"fs": {Command: secret.Plain("npx")}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range diag.All(CheckTools(tt.c, tt.mount)) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckTools() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
