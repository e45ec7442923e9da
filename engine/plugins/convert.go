package plugins

import (
	"encoding/json"

	"github.com/dop251/goja"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	svcv1 "hearth/proto/svc/v1"
)

// Objects cross between Go and a plugin in the JSON form of the proto messages (lowerCamelCase
// names, int64 as strings, enums by name, zero values left out), as the API's JSON clients see
// them: marshalled by protojson and parsed by the runtime's JSON.parse into plain objects one
// way, serialized by the hardened JSON.stringify and read by protojson (unknown fields refused)
// the other. The URLs of files stay unsigned: a plugin cannot fetch anything.

// toJS is a message as a plain object of the runtime.
func (p *instance) toJS(m proto.Message) goja.Value {
	b, err := protojson.Marshal(m)
	if err != nil {
		panic(p.sb.vm.NewGoError(err))
	}
	return p.parseJSON(b)
}

// toJSList is a list of messages as an array.
func toJSListOf[M proto.Message](p *instance, ms []M) goja.Value {
	vals := make([]any, len(ms))
	for i, m := range ms {
		vals[i] = p.toJS(m)
	}
	return p.sb.vm.NewArray(vals...)
}

func (p *instance) toJSList(ms any) goja.Value {
	switch ms := ms.(type) {
	case []*svcv1.Member:
		return toJSListOf(p, ms)
	case []*svcv1.Channel:
		return toJSListOf(p, ms)
	case []*svcv1.Message:
		return toJSListOf(p, ms)
	}
	panic("toJSList: unexpected list")
}

func (p *instance) parseJSON(b []byte) goja.Value {
	v, err := p.sb.parse(goja.Undefined(), p.sb.vm.ToValue(string(b)))
	if err != nil {
		panic(err)
	}
	return v
}

// fromJS reads a plain object of the script into m, throwing a TypeError that names what
// when it does not fit.
func (p *instance) fromJS(what string, v goja.Value, m proto.Message) {
	if _, ok := v.(*goja.Object); !ok {
		p.throw("%s takes an object", what)
	}
	s, err := p.sb.stringify(goja.Undefined(), v)
	if err != nil {
		panic(err)
	}
	if err := protojson.Unmarshal([]byte(s.String()), m); err != nil {
		p.throw("%s: %v", what, err)
	}
}

// protoArg is a hook argument made from a message inside the run.
func (p *instance) protoArg(m proto.Message) func() goja.Value {
	return func() goja.Value { return p.toJS(m) }
}

// jsonArg is a hook argument made from a Go value (maps, strings, json.RawMessage) inside the
// run.
func (p *instance) jsonArg(v any) func() goja.Value {
	return func() goja.Value {
		b, err := json.Marshal(v)
		if err != nil {
			panic(p.sb.vm.NewGoError(err))
		}
		return p.parseJSON(b)
	}
}

// jsonOf is a message in its JSON form, to put inside a jsonArg.
func jsonOf(m proto.Message) json.RawMessage {
	b, err := protojson.Marshal(m)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
