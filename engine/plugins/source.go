package plugins

import (
	"fmt"
	"math/big"
	"reflect"
	"strconv"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
	"github.com/dop251/goja/unistring"
)

// A plugin's source is parsed, checked and rewritten before it is compiled, for the amplifiers
// that are syntax rather than built-ins (see harden.go):
//
//   - BigInt literals are refused: `1n << 10000000000n` is one instruction that allocates
//     gigabytes (the BigInt global is removed, and eval with it, so literals are the only way);
//   - object rest patterns (`const {...rest} = x`) are refused, and the value of an object
//     spread (`{...x}`) and of a for-in loop goes through guardName first: copying or
//     enumerating a long string or array makes one property per element, in one step;
//   - `+`, `+=` and template literals go through addName, addToName and templateName: goja
//     joins two strings in one instruction, which has no limit of its own (and goja has no
//     hook for it), so `s = s + s` doubled a string to a gigabyte in a few steps. These do
//     what the operators do, with the length of a string they make bounded and charged to the
//     run's heap limit before it is made (arith.go);
//   - `with` statements are refused: a `with` object could answer for the names above.
//
// These names cannot be written in JavaScript, so no script can shadow or call them by name.
const (
	guardName    = "%hearth.guard"
	addName      = "%hearth.add"
	addToName    = "%hearth.addTo"
	templateName = "%hearth.template"
)

// sourceError is a refusal of a plugin's source: a syntax error or a construct plugins may not
// use.
type sourceError struct{ msg string }

func (e *sourceError) Error() string { return e.msg }

// compile turns a plugin's source into a program.
func compile(name, src string) (*goja.Program, error) { return compileAs(name, src, false) }

// compileAs is compile, in strict mode or not (the prelude's).
func compileAs(name, src string, strict bool) (*goja.Program, error) {
	prg, err := goja.Parse(name, src)
	if err != nil {
		return nil, &sourceError{err.Error()}
	}
	w := &rewriter{file: prg.File, seen: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(prg))
	if w.err != nil {
		return nil, w.err
	}
	p, err := goja.CompileAST(prg, strict)
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
		if v.IsNil() {
			return
		}
		if r := w.replace(v.Elem().Interface()); r != nil && v.CanSet() && reflect.TypeOf(r).AssignableTo(v.Type()) {
			v.Set(reflect.ValueOf(r))
		}
		w.walk(v.Elem())
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
	case *ast.WithStatement:
		w.refuse(n.With, "with statements are not available to plugins")
	}
}

// replace returns what an expression is rewritten to (nil: it stays): `a + b` is add(a, b);
// `x += v` is x = add(x, v), or addTo(o, key, v) for a property (o and key evaluated once); an
// untagged template with expressions is template(text, value, text, ..., text).
func (w *rewriter) replace(n any) ast.Expression {
	switch n := n.(type) {
	case *ast.BinaryExpression:
		if n.Operator == token.PLUS {
			return hidden(addName, n.Idx0(), n.Left, n.Right)
		}
	case *ast.AssignExpression:
		if n.Operator == token.PLUS {
			return w.addAssign(n)
		}
	case *ast.TemplateLiteral:
		if n.Tag != nil || len(n.Expressions) == 0 {
			return nil
		}
		var args []ast.Expression
		for i, el := range n.Elements {
			args = append(args, &ast.StringLiteral{Idx: el.Idx, Literal: strconv.Quote(el.Parsed.String()), Value: el.Parsed})
			if i < len(n.Expressions) {
				args = append(args, n.Expressions[i])
			}
		}
		return hidden(templateName, n.Idx0(), args...)
	}
	return nil
}

// addAssign rewrites `target += v`.
func (w *rewriter) addAssign(n *ast.AssignExpression) ast.Expression {
	at := n.Idx0()
	// The target read again as a value: a copy, so that no node is in the tree twice.
	again := func(e ast.Expression) ast.Expression {
		switch e := e.(type) {
		case *ast.Identifier:
			c := *e
			return &c
		case *ast.DotExpression:
			c := *e
			return &c
		case *ast.BracketExpression:
			c := *e
			return &c
		case *ast.PrivateDotExpression:
			c := *e
			return &c
		}
		return nil
	}
	assign := func() ast.Expression {
		return &ast.AssignExpression{Operator: token.ASSIGN, Left: n.Left, Right: hidden(addName, at, again(n.Left), n.Right)}
	}
	switch t := n.Left.(type) {
	case *ast.Identifier:
		return assign()
	case *ast.DotExpression:
		if _, super := t.Left.(*ast.SuperExpression); super {
			return assign()
		}
		name := &ast.StringLiteral{Idx: t.Identifier.Idx, Literal: strconv.Quote(t.Identifier.Name.String()), Value: t.Identifier.Name}
		return hidden(addToName, at, t.Left, name, n.Right)
	case *ast.BracketExpression:
		if _, super := t.Left.(*ast.SuperExpression); super {
			return assign()
		}
		return hidden(addToName, at, t.Left, t.Member, n.Right)
	case *ast.PrivateDotExpression:
		// Its object is read twice: only where reading it twice is reading it once.
		switch t.Left.(type) {
		case *ast.ThisExpression, *ast.Identifier:
			return assign()
		}
		w.refuse(at, "+= on a private field of an expression other than this or a name: assign the object to a variable first")
		return nil
	}
	w.refuse(at, "this += has a target plugins may not use")
	return nil
}

func (w *rewriter) refuse(at file.Idx, msg string) {
	if w.err == nil {
		w.err = &sourceError{fmt.Sprintf("%s: %s", w.file.Position(int(at)-w.file.Base()), msg)}
	}
}

// guard wraps e in a call of guardName.
func guard(e ast.Expression) ast.Expression { return hidden(guardName, e.Idx0(), e) }

// hidden is a call of one of the hidden functions.
func hidden(name string, at file.Idx, args ...ast.Expression) *ast.CallExpression {
	return &ast.CallExpression{
		Callee:           &ast.Identifier{Name: unistring.String(name), Idx: at},
		LeftParenthesis:  at,
		ArgumentList:     args,
		RightParenthesis: at,
	}
}

// installGuard defines guardName on the sandbox's global object, where no script can change it.
func (s *sandbox) installGuard() error {
	fn := s.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		v := call.Argument(0)
		s.stringWalk("spreading or enumerating", v)
		if n := s.stringLen(v); n > 0 {
			s.chargeElements("spreading or enumerating", float64(n))
		}
		if o, ok := v.(*goja.Object); ok && o.ClassName() == "Array" {
			n := s.lengthOf(o)
			if n > maxElements {
				s.throwRange("spreading or enumerating: the array has %.0f elements; plugins use at most %d", n, maxElements)
			}
			s.chargeElements("spreading or enumerating", n)
		}
		return v
	})
	global := s.vm.GlobalObject()
	for name, fn := range map[string]goja.Value{
		guardName: fn, addName: s.vm.ToValue(s.add), addToName: s.vm.ToValue(s.addTo), templateName: s.vm.ToValue(s.template),
	} {
		if err := global.DefineDataProperty(name, fn, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}
