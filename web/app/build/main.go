// Command build makes the browser client's bundle in web/app/dist from the TypeScript source in
// web/app/src. `go generate ./web/app` runs it from web/app; the output is committed, so building
// or running the server needs no Node, and CI checks that running it again changes nothing.
//
// Steps, each one deterministic:
//  1. npm ci when node_modules is missing or older than package-lock.json (the npm registry);
//  2. the API's TypeScript types from proto/svc/v1 with protoc-gen-es as a local buf plugin
//     (buf.gen.yaml), into src/gen;
//  3. the table of standard emoji shortcodes, src/lib/shortcodeData.ts (shortcodes.go), and
//     a type check of the whole source (tsc --noEmit);
//  4. one bundle with esbuild's Go API: dist/app.js and dist/app.css, minified, plus a chunk
//     for each part loaded on first use (import(): the code highlighter, the emoji
//     shortcodes, the screens away from the chat), the code app.js shares with them in one
//     chunk (chunks.go), and dist/index.html and dist/icon.svg copied from src;
//  5. no import cycle among the source's modules (imports.go);
//  6. the gzipped size of app.js and the chunks it imports, which must stay under 150 KB (the
//     chunks loaded on first use are printed).
//
// -metafile FILE writes esbuild's metafile (what each output holds, module by module: for
// esbuild's analyzer); -analyze prints, for app.js and the chunks it imports, the modules and the
// packages that weigh most.
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// maxGzippedJS is the budget for the client's JavaScript, gzipped (README, "The browser client").
const maxGzippedJS = 150_000

var (
	metafileOut = flag.String("metafile", "", "write esbuild's metafile to this file")
	analyze     = flag.Bool("analyze", false, "print what weighs most in app.js and the chunks it imports")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "web/app build:", err)
		os.Exit(1)
	}
}

func run() error {
	if err := npmCI(); err != nil {
		return err
	}
	if err := command("go", "run", "github.com/bufbuild/buf/cmd/buf@v1.75.0", "generate",
		"--template", "buf.gen.yaml", "--path", "../../proto/svc/v1", "../../proto"); err != nil {
		return err
	}
	if err := writeShortcodes(); err != nil {
		return err
	}
	explained, err := typeCheck()
	if err != nil {
		return err
	}
	b, err := bundle()
	if err != nil {
		return err
	}
	if err := checkImports(explained, b.source); err != nil {
		return err
	}
	files, metafile := b.files, b.metafile
	if *metafileOut != "" {
		if err := os.WriteFile(*metafileOut, []byte(metafile), 0o644); err != nil {
			return err
		}
	}
	if *analyze {
		if err := printWeights(files, metafile); err != nil {
			return err
		}
	}
	// What every start loads: app.js and the chunks it imports (the code it shares with the
	// chunks loaded on first use). That is what the budget holds.
	m, err := readMeta(metafile)
	if err != nil {
		return err
	}
	startup := m.startChunks()
	for _, name := range []string{"index.html", "icon.svg"} {
		b, err := os.ReadFile(filepath.Join("src", name))
		if err != nil {
			return err
		}
		files[name] = b
	}
	if files["index.html"], err = preloadStart(files["index.html"], startup); err != nil {
		return err
	}
	if err := writeDist(files); err != nil {
		return err
	}
	size := gzipSize(files["app.js"])
	for _, name := range startup {
		size += gzipSize(files[name])
	}
	fmt.Printf("web/app: app.js %d bytes, %d gzipped with the %d chunk(s) it imports; app.css %d bytes, %d gzipped\n",
		len(files["app.js"]), size, len(startup), len(files["app.css"]), gzipSize(files["app.css"]))
	for _, name := range chunkNames(files) {
		when := "loaded on first use"
		if slices.Contains(startup, name) {
			when = "loaded with app.js"
		}
		fmt.Printf("web/app: %s %d bytes, %d gzipped, %s\n", name, len(files[name]), gzipSize(files[name]), when)
	}
	if size > maxGzippedJS {
		return fmt.Errorf("app.js is %d bytes gzipped with what it imports; the budget is %d", size, maxGzippedJS)
	}
	return nil
}

// npmCI installs node_modules exactly as package-lock.json says, unless that was done already
// since the lock file last changed.
func npmCI() error {
	lock, err := os.Stat("package-lock.json")
	if err != nil {
		return err
	}
	installed, err := os.Stat("node_modules/.package-lock.json")
	if err == nil && !installed.ModTime().Before(lock.ModTime()) {
		return nil
	}
	return command("npm", "ci", "--no-audit", "--no-fund")
}

// typeCheck runs tsc over the whole source; its answer explains why each file is in the program,
// which names every import (imports.go). A failure shows the type errors alone.
func typeCheck() (string, error) {
	tsc := []string{"node_modules/typescript/bin/tsc", "--noEmit", "-p", "."}
	out, err := exec.Command("node", append(tsc, "--explainFiles")...).Output()
	if err == nil {
		return string(out), nil
	}
	if err := command("node", tsc...); err != nil {
		return "", err
	}
	return "", fmt.Errorf("tsc --explainFiles: %w", err)
}

func command(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %v: %w", name, args, err)
	}
	return nil
}

// built is the bundle: the files of dist, esbuild's metafile of them, and the metafile of the
// first pass, whose imports are the source's as written (the second adds some, chunks.go).
type built struct {
	files            map[string][]byte
	metafile, source string
}

// bundle builds src/main.tsx and everything it imports into one script and one style sheet,
// with a chunk for each import(), in two passes: the first finds what loads at start and what
// is loaded on first use, the second joins the start's modules in one chunk (chunks.go). The
// metafiles list the modules and their imports.
func bundle() (built, error) {
	wd, err := os.Getwd()
	if err != nil {
		return built{}, err
	}
	plugins := []api.Plugin{binaryProtobuf(wd)}
	_, first, err := esbuild(wd, plugins, nil)
	if err != nil {
		return built{}, err
	}
	m, err := readMeta(first)
	if err != nil {
		return built{}, err
	}
	start := m.startModules()
	// The start's modules from the packages are marked as having no side effects: esbuild says it
	// ignores their imports for their side effects, but it places them by them all the same.
	quiet := map[string]api.LogLevel{"ignored-bare-import": api.LogLevelSilent}
	joined := slices.DeleteFunc(slices.Clone(start), func(mod string) bool { return mod == m.Outputs["dist/app.js"].EntryPoint })
	files, second, err := esbuild(wd, append(plugins, startJoiner(wd, m.lazyEntries(), joined)), quiet)
	if err != nil {
		return built{}, err
	}
	m2, err := readMeta(second)
	if err != nil {
		return built{}, err
	}
	if got := m2.startModules(); !slices.Equal(got, start) {
		return built{}, fmt.Errorf("joining the start's chunks changed what loads at start: %d modules, then %d (web/app/build/chunks.go)", len(start), len(got))
	}
	return built{files: files, metafile: second, source: first}, nil
}

func esbuild(wd string, plugins []api.Plugin, logOverride map[string]api.LogLevel) (map[string][]byte, string, error) {
	res := api.Build(api.BuildOptions{
		AbsWorkingDir:     wd,
		EntryPoints:       []string{"src/main.tsx"},
		EntryNames:        "app",
		Outdir:            "dist",
		Bundle:            true,
		Write:             false,
		Format:            api.FormatESModule,
		Platform:          api.PlatformBrowser,
		Target:            api.ES2022,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		JSX:               api.JSXAutomatic,
		JSXImportSource:   "preact",
		LegalComments:     api.LegalCommentsEndOfFile,
		Charset:           api.CharsetUTF8,
		Sourcemap:         api.SourceMapNone,
		TreeShaking:       api.TreeShakingTrue,
		Define:            map[string]string{"process.env.NODE_ENV": `"production"`},
		LogLevel:          api.LogLevelWarning,
		LogOverride:       logOverride,
		Metafile:          true,
		// What is loaded on first use (import()) is a chunk of its own, named after its module.
		Splitting:  true,
		ChunkNames: "[name]-[hash]",
		Alias:      aliases,
		Plugins:    plugins,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return nil, "", errors.New(string(bytes.Join(toBytes(msgs), nil)))
	}
	files := map[string][]byte{}
	for _, f := range res.OutputFiles {
		rel, err := filepath.Rel(filepath.Join(wd, "dist"), f.Path)
		if err != nil {
			return nil, "", err
		}
		// The style sheets of the chunks: esbuild puts their rules in app.css as well, which
		// the page loads; these would never be.
		if filepath.Ext(rel) == ".css" && rel != "app.css" {
			continue
		}
		files[rel] = f.Contents
	}
	if files["app.js"] == nil || files["app.css"] == nil {
		return nil, "", fmt.Errorf("esbuild made %d files, not app.js and app.css", len(files))
	}
	return files, res.Metafile, nil
}

// aliases replace packages the client's dependencies import. markdown-it's "entities" decodes
// character references with a table of HTML's 2,000 names (16 KB gzipped); the client shows
// them as typed (src/lib/entities.ts says why). The unit tests' bundle uses the same.
var aliases = map[string]string{"entities": "./src/lib/entities.ts"}

// appScript is how index.html loads the client.
const appScript = `<script type="module" src="app.js"></script>`

// preloadStart has the page ask for the chunks app.js imports along with app.js (modulepreload)
// rather than once app.js has come and been read: one round trip less before the client runs.
func preloadStart(index []byte, chunks []string) ([]byte, error) {
	if !bytes.Contains(index, []byte(appScript)) {
		return nil, fmt.Errorf("src/index.html does not load the client with %s", appScript)
	}
	var links strings.Builder
	for _, name := range chunks {
		fmt.Fprintf(&links, "<link rel=\"modulepreload\" href=%q>\n", name)
	}
	return bytes.Replace(index, []byte(appScript), []byte(links.String()+appScript), 1), nil
}

// chunkNames are the scripts beside app.js, in order.
func chunkNames(files map[string][]byte) []string {
	var names []string
	for name := range files {
		if name != "app.js" && filepath.Ext(name) == ".js" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// writeDist replaces dist/ with files, so that nothing stale stays behind.
func writeDist(files map[string][]byte) error {
	if err := os.RemoveAll("dist"); err != nil {
		return err
	}
	if err := os.MkdirAll("dist", 0o755); err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join("dist", name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func gzipSize(b []byte) int {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Len()
}
