package engine

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The engine knows nothing of how people sign in or how calls arrive: no package under
// engine/ imports auth or web, directly or through another package of this module (the
// built-in issuer's account store is adapted to auth where the server is assembled, in web).
// Read from the sources' import lines, every non-test file whatever its build constraints.
func TestEngineImportsNeitherAuthNorWeb(t *testing.T) {
	const module = "hearth"
	forbidden := []string{module + "/auth", module + "/web"}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var starts []string
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() {
			starts = append(starts, filepath.ToSlash(filepath.Join(module, "engine", path)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(starts, module+"/engine/store") {
		t.Fatalf("walked %v, without engine/store", starts)
	}

	// imports reads the module's packages a package imports, memoized.
	known := map[string][]string{}
	imports := func(pkg string) []string {
		if deps, ok := known[pkg]; ok {
			return deps
		}
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(pkg, module+"/")))
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var deps []string
		fset := token.NewFileSet()
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			parsed, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range parsed.Imports {
				path, err := strconv.Unquote(spec.Path.Value)
				if err != nil {
					t.Fatal(err)
				}
				if path == module || strings.HasPrefix(path, module+"/") {
					deps = append(deps, path)
				}
			}
		}
		known[pkg] = deps
		return deps
	}

	for _, start := range starts {
		// A walk of what start imports, keeping the way there to name it in a failure.
		via := map[string]string{start: ""}
		queue := []string{start}
		for len(queue) > 0 {
			pkg := queue[0]
			queue = queue[1:]
			for _, dep := range imports(pkg) {
				if _, seen := via[dep]; seen {
					continue
				}
				via[dep] = pkg
				for _, f := range forbidden {
					if dep == f || strings.HasPrefix(dep, f+"/") {
						chain := []string{dep}
						for p := pkg; p != ""; p = via[p] {
							chain = append(chain, p)
						}
						slices.Reverse(chain)
						t.Errorf("%s imports %s: %s", start, dep, strings.Join(chain, " -> "))
					}
				}
				queue = append(queue, dep)
			}
		}
	}
}
