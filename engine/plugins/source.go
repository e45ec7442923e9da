package plugins

import (
	"fmt"
	"math/big"
	"reflect"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/unistring"
)

// A plugin's source is parsed, checked and rewritten before it is compiled, for the amplifiers
// that are syntax rather than built-ins (see harden.go):
//
//   - BigInt literals are refused: `1n << 10000000000n` is one instruction that allocates
//     gigabytes (the BigInt global is removed, and eval with it, so literals are the only way);
//   - object rest patterns (`const {...rest} = x`) are refused, and the value of an object
//     spread (`{...x}`) and of a for-in loop goes through guardName first: copying or
//     enumerating a long string or array makes one property per element, in one step.
//
// guardName cannot be written in JavaScript, so no script can shadow or call it by name.
const guardName = "%hearth.guard"

// sourceError is a refusal of a plugin's source: a syntax error or a construct plugins may not
// use.
type sourceError struct{ msg string }

func (e *sourceError) Error() string { return e.msg }

// compile turns a plugin's source into a program.
func compile(name, src string) (*goja.Program, error) {
	prg, err := goja.Parse(name, src)
	if err != nil {
		return nil, &sourceError{err.Error()}
	}
	w := &rewriter{file: prg.File, seen: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(prg))
	if w.err != nil {
		return nil, w.err
	}
	p, err := goja.CompileAST(prg, false)
	if err != nil {
		return nil, &sourceError{err.Error()}
	}
	return p, nil
}

type rewriter struct {
	file *file.File
	seen map[uintptr]bool
	err  error
}

var fileType = reflect.TypeOf((*file.File)(nil))

func (w *rewriter) walk(v reflect.Value) {
	if w.err != nil || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem())
		}
	case reflect.Pointer:
		if v.IsNil() || v.Type() == fileType {
			return
		}
		if w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		w.visit(v.Interface())
		w.walk(v.Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				w.walk(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i))
		}
	}
}

// visit checks and rewrites one node, before its children are walked.
func (w *rewriter) visit(n any) {
	switch n := n.(type) {
	case *ast.NumberLiteral:
		if _, ok := n.Value.(*big.Int); ok {
			w.refuse(n.Idx, "BigInt literals are not available to plugins")
		}
	case *ast.ObjectPattern:
		if n.Rest != nil {
			w.refuse(n.LeftBrace, "object rest patterns ({...rest}) are not available to plugins; copy the properties you need")
		}
	case *ast.ObjectLiteral:
		for _, p := range n.Value {
			if s, ok := p.(*ast.SpreadElement); ok {
				s.Expression = guard(s.Expression)
			}
		}
	case *ast.ForInStatement:
		n.Source = guard(n.Source)
	}
}

func (w *rewriter) refuse(at file.Idx, msg string) {
	if w.err == nil {
		w.err = &sourceError{fmt.Sprintf("%s: %s", w.file.Position(int(at)-w.file.Base()), msg)}
	}
}

// guard wraps e in a call of guardName.
func guard(e ast.Expression) ast.Expression {
	at := e.Idx0()
	return &ast.CallExpression{
		Callee:           &ast.Identifier{Name: unistring.String(guardName), Idx: at},
		LeftParenthesis:  at,
		ArgumentList:     []ast.Expression{e},
		RightParenthesis: at,
	}
}

// installGuard defines guardName on the sandbox's global object, where no script can change it.
func (s *sandbox) installGuard() error {
	fn := s.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		v := call.Argument(0)
		s.stringWalk("spreading or enumerating", v)
		if o, ok := v.(*goja.Object); ok && o.ClassName() == "Array" {
			if n := s.lengthOf(o); n > maxElements {
				s.throwRange("spreading or enumerating: the array has %.0f elements; plugins use at most %d", n, maxElements)
			}
		}
		return v
	})
	return s.vm.GlobalObject().DefineDataProperty(guardName, fn, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}
