package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The client's modules import one another in layers (web/app/README.md): lib, then state, then
// ui. An import cycle ties two layers, or two screens, into one: the build fails on any, type
// imports included (a type imported back is the same knot, to a reader and to the next change).
//
// tsc --explainFiles names every import of every file, types included; esbuild's metafile names
// the imports that remain at run time. The graph is both: each import esbuild saw must be among
// tsc's, or tsc's output was not understood and the check says so rather than pass unseen.

// importGraph is src's modules and the src modules each one imports.
type importGraph map[string]map[string]bool

func (g importGraph) add(from, to string) {
	if g[from] == nil {
		g[from] = map[string]bool{}
	}
	g[from][to] = true
}

// explainedImport is a line of tsc --explainFiles under the file imported: who imports it.
var explainedImport = regexp.MustCompile(`^\s+Imported via (?:"[^"]*"|'[^']*') from file '([^']+)'`)

// tscImports reads tsc --explainFiles: a file's path unindented, then the reasons it is in the
// program, indented, one of them "Imported via ... from file '...'" for each file importing it.
func tscImports(explained string) importGraph {
	g := importGraph{}
	file := ""
	for _, line := range strings.Split(explained, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' {
			file = line
			continue
		}
		if m := explainedImport.FindStringSubmatch(line); m != nil && inSrc(file) && inSrc(m[1]) {
			g.add(m[1], file)
		}
	}
	return g
}

// metafileImports reads esbuild's metafile: the TypeScript modules of src each one imports.
func metafileImports(metafile string) (importGraph, error) {
	var meta struct {
		Inputs map[string]struct {
			Imports []struct {
				Path     string `json:"path"`
				Original string `json:"original"`
			} `json:"imports"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(metafile), &meta); err != nil {
		return nil, fmt.Errorf("esbuild's metafile: %w", err)
	}
	g := importGraph{}
	for from, in := range meta.Inputs {
		for _, imp := range in.Imports {
			// A package's import the build routes to a module of src (chunks.go,
			// binaryProtobuf) is the package's, as tsc sees it.
			if !strings.HasPrefix(imp.Original, ".") {
				continue
			}
			if inSrc(from) && inSrc(imp.Path) {
				g.add(from, imp.Path)
			}
		}
	}
	return g, nil
}

// inSrc: a TypeScript module of the client's own source (style sheets import nothing).
func inSrc(path string) bool {
	return strings.HasPrefix(path, "src/") && (strings.HasSuffix(path, ".ts") || strings.HasSuffix(path, ".tsx"))
}

// checkImports fails on an import cycle among src's modules, or when tsc's list of imports
// lacks one that esbuild's has (its output was not understood).
func checkImports(explained, metafile string) error {
	all := tscImports(explained)
	run, err := metafileImports(metafile)
	if err != nil {
		return err
	}
	for from, tos := range run {
		for to := range tos {
			if !all[from][to] {
				return fmt.Errorf("tsc --explainFiles does not list the import of %s by %s that esbuild bundled: its output was not understood (web/app/build/imports.go)", to, from)
			}
		}
	}
	if cycles := all.cycles(); len(cycles) > 0 {
		var b strings.Builder
		for _, c := range cycles {
			fmt.Fprintf(&b, "\n  %s", strings.Join(c, " -> "))
		}
		return fmt.Errorf("import cycles among the client's modules (type imports count; web/app/README.md says where each thing goes):%s", b.String())
	}
	return nil
}

// cycles finds the strongly connected components of g with more than one module, or one that
// imports itself (Tarjan's algorithm), and gives one cycle through each, as a path that ends
// where it starts, the first module the smallest by name; sorted, so the report is stable.
func (g importGraph) cycles() [][]string {
	nodes := make([]string, 0, len(g))
	for n := range g {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v] = len(index)
		low[v] = index[v]
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range g.next(v) {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		comp := map[string]bool{}
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			comp[w] = true
			if w == v {
				break
			}
		}
		if len(comp) > 1 || g[v][v] {
			out = append(out, g.cycleIn(comp))
		}
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// next is what v imports, by name.
func (g importGraph) next(v string) []string {
	out := make([]string, 0, len(g[v]))
	for w := range g[v] {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// cycleIn is a shortest cycle through the smallest module of a strongly connected component.
func (g importGraph) cycleIn(comp map[string]bool) []string {
	start := ""
	for n := range comp {
		if start == "" || n < start {
			start = n
		}
	}
	prev := map[string]string{}
	queue := []string{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range g.next(v) {
			if !comp[w] {
				continue
			}
			if w == start {
				path := []string{start}
				for n := v; n != start; n = prev[n] {
					path = append(path, n)
				}
				// path is start, then v back to start's successor: put it in import order.
				for i, j := 1, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return append(path, start)
			}
			if _, seen := prev[w]; !seen {
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	return []string{start, start}
}
