package main

import (
	"reflect"
	"strings"
	"testing"
)

// explainedSample is tsc --explainFiles as tsc 7 writes it: type imports are listed as any.
const explainedSample = `node_modules/@typescript/typescript-linux-x64/lib/lib.es5.d.ts
   Library referenced via 'es5' from file 'node_modules/@typescript/typescript-linux-x64/lib/lib.es2015.d.ts'
node_modules/preact/src/jsx.d.ts
   Imported via './jsx' from file 'node_modules/preact/src/index.d.ts' with packageId 'preact/src/jsx.d.ts@11.2.0'
src/state/topics.ts
   Imported via "./topics" from file 'src/state/view.ts'
   Imported via "./topics" from file 'src/state/session.ts'
src/state/view.ts
   Imported via "./view" from file 'src/state/session.ts'
src/state/session.ts
   Imported via "../state/session" from file 'src/ui/App.tsx'
   Imported via "./session" from file 'src/state/view.ts'
src/ui/App.tsx
   Imported via "./ui/App" from file 'src/main.tsx'
node_modules/preact/src/index.d.ts
   Imported via "preact" from file 'src/ui/App.tsx' with packageId 'preact@11.2.0'
src/main.tsx
   Matched by include pattern 'src' in 'tsconfig.json'
`

func TestTscImports(t *testing.T) {
	got := tscImports(strings.ReplaceAll(explainedSample, "\n", "\r\n"))
	want := importGraph{
		"src/state/view.ts":    {"src/state/topics.ts": true, "src/state/session.ts": true},
		"src/state/session.ts": {"src/state/topics.ts": true, "src/state/view.ts": true},
		"src/ui/App.tsx":       {"src/state/session.ts": true},
		"src/main.tsx":         {"src/ui/App.tsx": true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tscImports = %v\nwant %v", got, want)
	}
}

func TestImportCycles(t *testing.T) {
	g := importGraph{}
	edges := [][2]string{
		{"src/main.tsx", "src/ui/Sidebar.tsx"},
		{"src/ui/Sidebar.tsx", "src/ui/admin/Community.tsx"},
		{"src/ui/admin/Community.tsx", "src/ui/admin/Channels.tsx"},
		{"src/ui/admin/Channels.tsx", "src/ui/Sidebar.tsx"},
		{"src/ui/admin/Channels.tsx", "src/ui/common.tsx"},
		{"src/state/session.ts", "src/state/view.ts"},
		{"src/state/view.ts", "src/state/session.ts"},
		{"src/lib/self.ts", "src/lib/self.ts"},
		{"src/ui/common.tsx", "src/state/store.ts"},
	}
	for _, e := range edges {
		g.add(e[0], e[1])
	}
	want := [][]string{
		{"src/lib/self.ts", "src/lib/self.ts"},
		{"src/state/session.ts", "src/state/view.ts", "src/state/session.ts"},
		{"src/ui/Sidebar.tsx", "src/ui/admin/Community.tsx", "src/ui/admin/Channels.tsx", "src/ui/Sidebar.tsx"},
	}
	if got := g.cycles(); !reflect.DeepEqual(got, want) {
		t.Errorf("cycles = %q\nwant %q", got, want)
	}
	layered := importGraph{}
	layered.add("src/ui/App.tsx", "src/state/session.ts")
	layered.add("src/state/session.ts", "src/lib/api.ts")
	layered.add("src/ui/App.tsx", "src/lib/api.ts")
	if got := layered.cycles(); len(got) != 0 {
		t.Errorf("layers: cycles %q, want none", got)
	}
}

func TestCheckImports(t *testing.T) {
	meta := `{"inputs":{"src/main.tsx":{"imports":[{"path":"src/ui/App.tsx","original":"./ui/App"},{"path":"src/style.css","original":"./style.css"},{"path":"node_modules/preact/dist/preact.module.js","original":"preact"}]},
		"src/ui/App.tsx":{"imports":[{"path":"src/state/session.ts","original":"../state/session"}]}}}`
	err := checkImports(explainedSample, meta)
	if err == nil || !strings.Contains(err.Error(), "src/state/session.ts -> src/state/view.ts -> src/state/session.ts") {
		t.Errorf("a cycle of a type import: %v", err)
	}
	// esbuild bundled an import tsc's listing lacks: the listing was not understood.
	meta = `{"inputs":{"src/main.tsx":{"imports":[{"path":"src/ui/Other.tsx","original":"./ui/Other"}]}}}`
	if err := checkImports(explainedSample, meta); err == nil || !strings.Contains(err.Error(), "not understood") {
		t.Errorf("an import tsc did not list: %v", err)
	}
	acyclic := strings.Replace(explainedSample, "   Imported via \"./session\" from file 'src/state/view.ts'\n", "", 1)
	meta = `{"inputs":{"src/main.tsx":{"imports":[{"path":"src/ui/App.tsx","original":"./ui/App"}]}}}`
	if err := checkImports(acyclic, meta); err != nil {
		t.Errorf("no cycle: %v", err)
	}
	// A package's import that the build routes to a module of src (binaryProtobuf) is the
	// package's to tsc: not an import tsc failed to list.
	meta = `{"inputs":{"src/ui/App.tsx":{"imports":[{"path":"src/lib/binaryProtobuf.ts","original":"@bufbuild/protobuf"}]}}}`
	if err := checkImports(acyclic, meta); err != nil {
		t.Errorf("a package's import routed into src: %v", err)
	}
}
