// Command build makes the browser client's bundle in web/app/dist from the TypeScript source in
// web/app/src. `go generate ./web/app` runs it from web/app; the output is committed, so building
// or running the server needs no Node, and CI checks that running it again changes nothing.
//
// Steps, each one deterministic:
//  1. npm ci when node_modules is missing or older than package-lock.json (the npm registry);
//  2. the API's TypeScript types from proto/svc/v1 with protoc-gen-es as a local buf plugin
//     (buf.gen.yaml), into src/gen;
//  3. a type check of the whole source (tsc --noEmit);
//  4. one bundle with esbuild's Go API: dist/app.js and dist/app.css, minified, plus
//     dist/index.html and dist/icon.svg copied from src;
//  5. no import cycle among the source's modules (imports.go);
//  6. the gzipped size of the JavaScript, which must stay under 150 KB.
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/evanw/esbuild/pkg/api"
)

// maxGzippedJS is the budget for the client's JavaScript, gzipped (README, "The browser client").
const maxGzippedJS = 150_000

func main() {
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
	explained, err := typeCheck()
	if err != nil {
		return err
	}
	files, metafile, err := bundle()
	if err != nil {
		return err
	}
	if err := checkImports(explained, metafile); err != nil {
		return err
	}
	for _, name := range []string{"index.html", "icon.svg"} {
		b, err := os.ReadFile(filepath.Join("src", name))
		if err != nil {
			return err
		}
		files[name] = b
	}
	if err := writeDist(files); err != nil {
		return err
	}
	size := gzipSize(files["app.js"])
	fmt.Printf("web/app: app.js %d bytes, %d gzipped; app.css %d bytes, %d gzipped\n",
		len(files["app.js"]), size, len(files["app.css"]), gzipSize(files["app.css"]))
	if size > maxGzippedJS {
		return fmt.Errorf("app.js is %d bytes gzipped; the budget is %d", size, maxGzippedJS)
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

// bundle builds src/main.tsx and everything it imports into one script and one style sheet;
// the metafile lists the modules and their imports.
func bundle() (map[string][]byte, string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, "", err
	}
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
		Metafile:          true,
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
		files[rel] = f.Contents
	}
	if files["app.js"] == nil || files["app.css"] == nil {
		return nil, "", fmt.Errorf("esbuild made %d files, not app.js and app.css", len(files))
	}
	return files, res.Metafile, nil
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
