// Package bench holds the benchmarks that compare strata with its
// baselines in one run: go-toml/v2 decoding the same bytes into typed
// structs (the parse floor) and koanf loading the same layers. Layer files
// are generated deterministically under testdata/ on first use.
package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Layer returns the text of benchmark layer k (1-based) with n tools. Each
// layer sets the same tools, with values that differ between layers, as a
// user file, a workspace file and directory files do.
func Layer(n, k int) []byte {
	var b strings.Builder
	runs := []string{"ask", "unattended", "edit", "skip"}
	fmt.Fprintf(&b, "[tools.'*']\nrun = %q\nresult = \"unattended\"\n\n", runs[k%4])
	fmt.Fprintf(&b, "[discover]\ndirs = [\"tools-%d\"]\n\n", k)
	for s := 0; s < 3; s++ {
		fmt.Fprintf(&b, "[mcp_servers.server_%d]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-%d\", \"--layer\", \"%d\"]\nenv = { LOG = \"%d\" }\n\n", s, s, k, k)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "[tools.tool_%04d]\n", i)
		fmt.Fprintf(&b, "source = \"local\"\n")
		fmt.Fprintf(&b, "command = \"jp-tools {{tool}} {{context}} --layer %d\"\n", k)
		fmt.Fprintf(&b, "summary = \"Tool %d does one thing (layer %d).\"\n", i, k)
		fmt.Fprintf(&b, "description = \"\"\"\nLonger text about tool %d.\n{{description}}\"\"\"\n", i)
		fmt.Fprintf(&b, "run = %q\n", runs[(i+k)%4])
		fmt.Fprintf(&b, "enable = %v\n", (i+k)%5 != 0)
		fmt.Fprintf(&b, "options.max_lines = %d\n", i*k)
		fmt.Fprintf(&b, "options.mode = \"fast\"\n")
		fmt.Fprintf(&b, "questions.apply_changes = { target = \"user\", answer = %v }\n\n", k%2 == 0)
		fmt.Fprintf(&b, "[tools.tool_%04d.parameters.path]\ntype = \"string\"\nrequired = true\ndescription = \"The path (layer %d).\"\n\n", i, k)
		fmt.Fprintf(&b, "[tools.tool_%04d.parameters.mode]\ntype = [\"string\", \"null\"]\nenum = [\"a\", \"b\", \"c\"]\ndefault = \"a\"\n\n", i)
	}
	return []byte(b.String())
}

// Files writes the benchmark layers (if missing) under dir and returns
// their paths, lowest precedence first.
func Files(dir string, layers, tools int) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	paths := make([]string, layers)
	for k := 1; k <= layers; k++ {
		p := filepath.Join(dir, fmt.Sprintf("layer%d-%dtools.toml", k, tools))
		if _, err := os.Stat(p); err != nil {
			if err := os.WriteFile(p, Layer(tools, k), 0o644); err != nil {
				return nil, err
			}
		}
		paths[k-1] = p
	}
	return paths, nil
}

// SmallLayers writes n small tools (a command, a summary and a run mode
// each: four values with the tool's table) under dir, if missing, in as
// few files as the file limit allows (at most 900 KB each), and returns
// their paths: a catalog of many tools, each set once.
func SmallLayers(dir string, n int) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	var b strings.Builder
	flush := func() error {
		p := filepath.Join(dir, fmt.Sprintf("small-%dtools-%d.toml", n, len(paths)+1))
		paths = append(paths, p)
		if _, err := os.Stat(p); err == nil {
			b.Reset()
			return nil
		}
		err := os.WriteFile(p, []byte(b.String()), 0o644)
		b.Reset()
		return err
	}
	runs := []string{"ask", "unattended", "edit", "skip"}
	for i := range n {
		fmt.Fprintf(&b, "[tools.tool_%05d]\ncommand = \"tool-%05d {{tool}}\"\nsummary = \"Tool %d.\"\nrun = %q\n\n", i, i, i, runs[i%4])
		if b.Len() > 900_000 {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if b.Len() > 0 {
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return paths, nil
}
