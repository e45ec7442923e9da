package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// What loads at start and what loads on first use.
//
// Each import() in the source is a chunk loaded on first use (src/lib/lazy.ts, src/ui/lazy.tsx).
// esbuild puts each module in the chunk of the set of entry points (app.js and each import())
// that reach it, so the code app.js shares with the lazy chunks would come as a dozen and more
// small chunks, one for each set of screens that use a module (preact, ui/common.tsx,
// lib/router.ts...): as many requests at every start, each one a file gzipped alone. The second
// pass of the build (startJoiner) makes each lazy chunk's entry import, for its side effects
// alone, every module of the start: they are then all reached by the same entry points, and
// come as one chunk. Nothing else changes: the lazy chunks do not grow (those modules are in
// the start, already run when a lazy chunk loads), and app.js starts the same modules.

// meta is the part of esbuild's metafile the build reads.
type meta struct {
	Inputs map[string]struct {
		Imports []struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		} `json:"imports"`
	} `json:"inputs"`
	Outputs map[string]struct {
		EntryPoint string `json:"entryPoint"`
		Imports    []struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		} `json:"imports"`
		Inputs map[string]struct {
			BytesInOutput int `json:"bytesInOutput"`
		} `json:"inputs"`
	} `json:"outputs"`
}

func readMeta(metafile string) (*meta, error) {
	var m meta
	if err := json.Unmarshal([]byte(metafile), &m); err != nil {
		return nil, fmt.Errorf("esbuild's metafile: %w", err)
	}
	return &m, nil
}

// startOutputs are app.js and the chunks it imports statically (not by import()), directly or
// through another chunk, by their paths in the metafile (dist/...).
func (m *meta) startOutputs() []string {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(out string) {
		if seen[out] {
			return
		}
		seen[out] = true
		for _, imp := range m.Outputs[out].Imports {
			if imp.Kind == "import-statement" {
				visit(imp.Path)
			}
		}
	}
	visit("dist/app.js")
	outs := make([]string, 0, len(seen))
	for out := range seen {
		outs = append(outs, out)
	}
	sort.Strings(outs)
	return outs
}

// startModules are the script modules whose code loads at start (the source's and the
// packages'), sorted: those with bytes in app.js or in a chunk it imports.
func (m *meta) startModules() []string {
	var mods []string
	for _, out := range m.startOutputs() {
		for in, b := range m.Outputs[out].Inputs {
			if b.BytesInOutput > 0 && isScript(in) && !slices.Contains(mods, in) {
				mods = append(mods, in)
			}
		}
	}
	sort.Strings(mods)
	return mods
}

// lazyEntries are the modules the source imports with import(): each the entry of a chunk.
func (m *meta) lazyEntries() []string {
	var mods []string
	for _, in := range m.Inputs {
		for _, imp := range in.Imports {
			if imp.Kind == "dynamic-import" && !slices.Contains(mods, imp.Path) {
				mods = append(mods, imp.Path)
			}
		}
	}
	sort.Strings(mods)
	return mods
}

func isScript(path string) bool {
	switch filepath.Ext(path) {
	case ".ts", ".tsx", ".js", ".mjs":
		return true
	}
	return false
}

// startJoiner is the second pass's plugin: each lazy entry (a path relative to wd, as in the
// metafile) imports the start's modules first, for their side effects alone (see above).
func startJoiner(wd string, lazy, start []string) api.Plugin {
	var imports strings.Builder
	for _, mod := range start {
		fmt.Fprintf(&imports, "import %q;\n", filepath.Join(wd, mod))
	}
	entries := map[string]bool{}
	for _, mod := range lazy {
		entries[filepath.Join(wd, mod)] = true
	}
	return api.Plugin{Name: "start-joiner", Setup: func(b api.PluginBuild) {
		b.OnLoad(api.OnLoadOptions{Filter: `\.(ts|tsx)$`}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			if !entries[args.Path] {
				return api.OnLoadResult{}, nil // esbuild loads it as usual
			}
			src, err := os.ReadFile(args.Path)
			if err != nil {
				return api.OnLoadResult{}, err
			}
			contents := imports.String() + string(src)
			loader := api.LoaderTS
			if filepath.Ext(args.Path) == ".tsx" {
				loader = api.LoaderTSX
			}
			return api.OnLoadResult{Contents: &contents, Loader: loader, ResolveDir: filepath.Dir(args.Path)}, nil
		})
	}}
}

// binaryProtobuf routes the imports of @bufbuild/protobuf to src/lib/binaryProtobuf.ts: the
// binary encoding alone, from the package's own files. Its index re-exports the JSON encoding as
// well, and esbuild places a module by the entry points that reach its file, through re-exports
// too: with the index imported at start (Connect's transport, the source), the JSON reader that
// one chunk loaded on first use needs (src/lib/protojson.ts: the answers of the multipart
// endpoints) would load at start too, and so would the transport's, which chooses the encoding
// when it runs (useBinaryFormat, src/lib/api.ts). Together ~6 KB gzipped of every start that
// the client never runs. protojson.ts alone imports the package as it is.
func binaryProtobuf(wd string) api.Plugin {
	shim := filepath.Join(wd, "src/lib/binaryProtobuf.ts")
	reader := filepath.Join(wd, "src/lib/protojson.ts")
	return api.Plugin{Name: "binary-protobuf", Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: `^@bufbuild/protobuf$`}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			if args.Importer == reader || args.Importer == shim {
				return api.OnResolveResult{}, nil // esbuild resolves it as usual
			}
			return api.OnResolveResult{Path: shim}, nil
		})
	}}
}

// startChunks are the chunks app.js imports statically, directly or through another, by their
// names in dist.
func (m *meta) startChunks() []string {
	var names []string
	for _, out := range m.startOutputs() {
		if out != "dist/app.js" {
			names = append(names, strings.TrimPrefix(out, "dist/"))
		}
	}
	return names
}

// printWeights prints the modules and the packages of the start, heaviest first, each with an
// estimate of its gzipped bytes: the build again without whitespace minified, where esbuild
// marks where each module's code begins ("// src/ui/Chat.tsx"); each module's code gzipped
// alone, and the sums scaled to the start's real gzipped size (a module gzipped alone
// compresses less well than within its file).
func printWeights(files map[string][]byte, metafile string) error {
	m, err := readMeta(metafile)
	if err != nil {
		return err
	}
	real := gzipSize(files["app.js"])
	for _, name := range m.startChunks() {
		real += gzipSize(files[name])
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	res := api.Build(api.BuildOptions{
		AbsWorkingDir: wd, EntryPoints: []string{"src/main.tsx"}, EntryNames: "app", Outdir: "dist",
		Bundle: true, Format: api.FormatESModule, Platform: api.PlatformBrowser, Target: api.ES2022,
		MinifyIdentifiers: true, MinifySyntax: true, JSX: api.JSXAutomatic, JSXImportSource: "preact",
		Charset: api.CharsetUTF8, TreeShaking: api.TreeShakingTrue, Metafile: true,
		Define: map[string]string{"process.env.NODE_ENV": `"production"`}, LogLevel: api.LogLevelWarning,
		Splitting: true, ChunkNames: "[name]-[hash]", Alias: aliases, Plugins: []api.Plugin{binaryProtobuf(wd)},
	})
	if len(res.Errors) > 0 {
		return fmt.Errorf("the build for -analyze: %s", res.Errors[0].Text)
	}
	um, err := readMeta(res.Metafile)
	if err != nil {
		return err
	}
	start := map[string]bool{}
	for _, out := range um.startOutputs() {
		start[filepath.Join(wd, out)] = true
	}
	marker := regexp.MustCompile(`(?m)^// (\S+)$`)
	alone := map[string]int{}
	total := 0
	for _, f := range res.OutputFiles {
		if !start[f.Path] {
			continue
		}
		idx := marker.FindAllSubmatchIndex(f.Contents, -1)
		for i, at := range idx {
			end := len(f.Contents)
			if i+1 < len(idx) {
				end = idx[i+1][0]
			}
			n := gzipSize(f.Contents[at[1]:end])
			alone[string(f.Contents[at[2]:at[3]])] += n
			total += n
		}
	}
	type weight struct {
		name string
		gz   int
	}
	sorted := func(by map[string]int) []weight {
		var ws []weight
		for name, n := range by {
			ws = append(ws, weight{name, n * real / max(total, 1)})
		}
		sort.Slice(ws, func(i, j int) bool { return ws[i].gz > ws[j].gz || ws[i].gz == ws[j].gz && ws[i].name < ws[j].name })
		return ws
	}
	packages := map[string]int{}
	for mod, n := range alone {
		packages[packageOf(mod)] += n
	}
	fmt.Printf("web/app: what loads at start, %d bytes gzipped (each estimated: gzipped alone, scaled to the whole)\n", real)
	for _, w := range sorted(packages) {
		fmt.Printf("  %7d  %s\n", w.gz, w.name)
	}
	fmt.Println("web/app: the 40 heaviest modules of the start")
	for i, w := range sorted(alone) {
		if i == 40 {
			break
		}
		fmt.Printf("  %7d  %s\n", w.gz, w.name)
	}
	return nil
}

// packageOf is the npm package of a module, or its folder in src.
func packageOf(mod string) string {
	parts := strings.Split(mod, "/")
	if parts[0] == "node_modules" && len(parts) > 2 {
		if strings.HasPrefix(parts[1], "@") {
			return strings.Join(parts[:3], "/")
		}
		return strings.Join(parts[:2], "/")
	}
	return filepath.Dir(mod) + "/"
}
