// Command binsize says where the bytes of a Go binary go, by module (or
// by package with -pkg): the sizes of its symbols (code, read-only data,
// data; not bss, which takes no room in the file), each given to the
// module of its package as the binary's build information lists them,
// "std" for the standard library and "(linker)" for the tables the linker
// makes of every package at once (go:func.*, go:string.*). With two
// binaries it gives both and the difference, largest first, and the
// difference of each ELF section, so that what the symbols do not hold
// (the pc tables, the symbol table, DWARF) is seen too:
//
//	go run ./internal/bench/binsize [-pkg] [-min BYTES] BINARY [NEW]
package main

import (
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	byPkg := flag.Bool("pkg", false, "by package rather than by module")
	min := flag.Int64("min", 1, "leave out the rows whose difference (or size, of one binary) is under BYTES")
	flag.Parse()
	if flag.NArg() < 1 || flag.NArg() > 2 {
		fmt.Fprintln(os.Stderr, "usage: binsize [-pkg] [-min BYTES] BINARY [NEW]")
		os.Exit(2)
	}
	var bins []*binary
	for _, path := range flag.Args() {
		b, err := read(path, *byPkg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "binsize:", err)
			os.Exit(1)
		}
		bins = append(bins, b)
	}
	write(os.Stdout, bins, *min)
}

// binary is what one binary's bytes are spent on.
type binary struct {
	path     string
	file     int64
	sections map[string]int64 // the bytes of each section in the file
	owners   map[string]int64 // the bytes of the symbols of each module or package
}

func read(path string, byPkg bool) (*binary, error) {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, err
	}
	mods := []string{info.Main.Path}
	for _, d := range info.Deps {
		mods = append(mods, d.Path)
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	b := &binary{path: path, file: st.Size(), sections: map[string]int64{}, owners: map[string]int64{}}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS && s.Name != "" {
			b.sections[s.Name] = int64(s.FileSize) // as stored: DWARF is compressed
		}
	}
	syms, err := f.Symbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return nil, err
	}
	for _, s := range syms {
		if int(s.Section) <= 0 || int(s.Section) >= len(f.Sections) || f.Sections[s.Section].Type == elf.SHT_NOBITS {
			continue
		}
		pkg := packageOf(s.Name)
		owner := pkg
		switch {
		case pkg == "":
			owner = "(linker)"
		case !byPkg:
			owner = moduleOf(pkg, mods)
		}
		b.owners[owner] += int64(s.Size)
	}
	return b, nil
}

// packageOf is the import path of the package a symbol belongs to, "" for
// the linker's own tables.
func packageOf(name string) string {
	for _, p := range []string{"type:.eq.", "type:.hash.", "type:", "go:itab.", "go:info.", "gclocals·"} {
		name = strings.TrimPrefix(name, p)
	}
	name = strings.TrimLeft(name, "*")
	if strings.HasPrefix(name, "go:") || strings.HasPrefix(name, "gclocals") || name == "" {
		return ""
	}
	if i := strings.IndexAny(name, "[,"); i >= 0 {
		name = name[:i] // a generic's type arguments, an itab's interface
	}
	dir, last := "", name
	if i := strings.LastIndex(name, "/"); i >= 0 {
		dir, last = name[:i+1], name[i+1:]
	}
	if i := strings.Index(last, "."); i >= 0 {
		last = last[:i]
	}
	return strings.TrimPrefix(dir+last, "vendor/")
}

// moduleOf is the module of mods that holds pkg (the longest path that is
// pkg or a parent of it), else "std".
func moduleOf(pkg string, mods []string) string {
	best := ""
	for _, m := range mods {
		if (pkg == m || strings.HasPrefix(pkg, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	if best == "" {
		return "std"
	}
	return best
}

func write(w io.Writer, bins []*binary, min int64) {
	if len(bins) == 1 {
		b := bins[0]
		fmt.Fprintf(w, "%s: %d bytes\n", b.path, b.file)
		rows := sorted(b.owners, func(k string) int64 { return b.owners[k] })
		var total int64
		for _, k := range rows {
			total += b.owners[k]
			if b.owners[k] >= min {
				fmt.Fprintf(w, "%12d  %s\n", b.owners[k], k)
			}
		}
		fmt.Fprintf(w, "%12d  symbols in all\n", total)
		return
	}
	old, new := bins[0], bins[1]
	fmt.Fprintf(w, "%12s %12s %12s\n", "old", "new", "delta")
	fmt.Fprintf(w, "%12d %12d %+12d  the file\n", old.file, new.file, new.file-old.file)
	diff := func(o, n map[string]int64, label string) {
		keys := map[string]int64{}
		for k := range o {
			keys[k] = n[k] - o[k]
		}
		for k := range n {
			keys[k] = n[k] - o[k]
		}
		var total int64
		for _, k := range sorted(keys, func(k string) int64 { return keys[k] }) {
			total += keys[k]
			if keys[k] >= min || -keys[k] >= min {
				fmt.Fprintf(w, "%12d %12d %+12d  %s\n", o[k], n[k], keys[k], k)
			}
		}
		fmt.Fprintf(w, "%12s %12s %+12d  %s\n", "", "", total, label)
	}
	fmt.Fprintln(w, "by symbol owner:")
	diff(old.owners, new.owners, "symbols in all")
	fmt.Fprintln(w, "by section:")
	diff(old.sections, new.sections, "sections in all")
}

// sorted is the keys of m, largest value first, then by name.
func sorted(m map[string]int64, v func(string) int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if v(keys[i]) != v(keys[j]) {
			return v(keys[i]) > v(keys[j])
		}
		return keys[i] < keys[j]
	})
	return keys
}
