package plugins

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"
	"golang.org/x/time/rate"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
)

// The `chat` object a plugin sees (DECISIONS.md, "Plugins"), and its console. Every action
// goes to the engine as the plugin's bot, through the same calls and checks as any bot's; a
// refusal is thrown as an Error with the engine's message. Objects go both ways in the JSON
// form of the proto messages.

// hookNames are the hooks chat.on accepts.
var hookNames = map[string]bool{
	"message": true, "messageUpdated": true, "messageDeleted": true, "memberJoined": true,
	"memberLeft": true, "reaction": true, "joinRequest": true, "beforeMessage": true,
}

const (
	// minEvery and maxEvery bound the period of chat.every; maxTimers bounds a plugin's timers.
	// maxEvery keeps the period a time.Duration: a larger one (Infinity, 1e10) overflowed to a
	// negative duration, a timer due at once that armed itself again at once, for ever.
	minEvery  = 60 * time.Second
	maxEvery  = 365 * 24 * time.Hour
	maxTimers = 16
	// console.log: lines a second and burst per plugin, and the longest line kept.
	consoleRate  = rate.Limit(10)
	consoleBurst = 50
	consoleMax   = 2000
	// errorMax bounds Plugin.error and the messages of errors thrown into a plugin.
	errorMax = 1000
)

// install defines chat and console in the instance's runtime.
func (p *instance) install() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("define the chat object: %v", r)
		}
	}()
	vm := p.sb.vm
	chat := vm.NewObject()
	set := func(o *goja.Object, name string, fn func(goja.FunctionCall) goja.Value) {
		must(o.Set(name, fn))
	}
	set(chat, "on", p.on)
	set(chat, "setJoinQuestions", p.setJoinQuestions)
	set(chat, "sendMessage", p.sendMessage)
	set(chat, "react", p.react)
	set(chat, "editMessage", p.editMessage)
	set(chat, "deleteMessage", p.deleteMessage)
	// Pins and polls (conversation.go).
	set(chat, "pin", p.pin)
	set(chat, "unpin", p.unpin)
	set(chat, "listPins", p.listPins)
	set(chat, "vote", p.vote)
	set(chat, "closePoll", p.closePoll)
	set(chat, "getMember", p.getMember)
	set(chat, "listMembers", p.listMembers)
	set(chat, "listChannels", p.listChannels)
	set(chat, "every", p.every)
	store := vm.NewObject()
	set(store, "get", p.storeGet)
	set(store, "set", p.storeSet)
	set(store, "delete", p.storeDelete)
	must(chat.Set("store", store))
	must(vm.Set("chat", chat))
	console := vm.NewObject()
	for _, name := range []string{"log", "info", "warn", "error", "debug"} {
		set(console, name, p.consoleLine(name))
	}
	must(vm.Set("console", console))
	return nil
}

// throw throws an Error with msg into the script.
func (p *instance) throw(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	msg = clip(msg, errorMax)
	o, err := p.sb.vm.New(p.sb.errorCtor, p.sb.vm.ToValue(msg))
	if err != nil {
		panic(err)
	}
	panic(o)
}

// throwEngine throws an engine error from the call what.
func (p *instance) throwEngine(what string, err error) {
	var ee *engine.Error
	if errors.As(err, &ee) {
		p.throw("%s: %s", what, ee.Msg)
	}
	p.throw("%s failed", what)
}

// asBot refuses an action at the top level: the plugin's bot exists once the top level has
// run (on a first install it is created then), and a top level that fails must change nothing.
func (p *instance) asBot(what string) {
	if p.topLevel {
		p.throw("%s is not available at the top level: the plugin acts as its bot from its hooks and timers", what)
	}
}

func (p *instance) on(call goja.FunctionCall) goja.Value {
	name := call.Argument(0).String()
	if !hookNames[name] {
		p.throw("chat.on: %q is not a hook; the hooks are message, messageUpdated, messageDeleted, memberJoined, memberLeft, reaction, joinRequest and beforeMessage", name)
	}
	fn, ok := goja.AssertFunction(call.Argument(1))
	if !ok {
		p.throw("chat.on(%q, fn): fn must be a function", name)
	}
	p.hooks[name] = fn
	switch name {
	case "joinRequest":
		p.joinHook.Store(true)
	case "beforeMessage":
		p.messageHook.Store(true)
	}
	return goja.Undefined()
}

// setJoinQuestions takes an array of strings (null or undefined clear the questions). The
// array's length is checked against the limit before anything is read from it, element by
// element: goja's ExportTo would make a Go slice of whatever length an object claims, in one
// step no time limit stops.
func (p *instance) setJoinQuestions(call goja.FunctionCall) goja.Value {
	const what = "chat.setJoinQuestions"
	var qs []string
	arg := call.Argument(0)
	if !goja.IsUndefined(arg) && !goja.IsNull(arg) {
		o, ok := arg.(*goja.Object)
		if !ok || o.ClassName() != "Array" {
			p.throw("%s takes a list of strings", what)
		}
		n := p.sb.lengthOf(o)
		if n > engine.JoinQuestionsMax {
			p.throw("%s has %.0f questions; the limit is %d", what, n, engine.JoinQuestionsMax)
		}
		for i := range int(n) {
			v := o.Get(strconv.Itoa(i))
			if _, ok := v.(goja.String); !ok {
				p.throw("%s takes a list of strings", what)
			}
			qs = append(qs, v.String())
		}
	}
	if err := engine.CheckJoinQuestions(what, qs); err != nil {
		p.throwEngine(what, err)
	}
	p.setQuestions(qs)
	return goja.Undefined()
}

func (p *instance) sendMessage(call goja.FunctionCall) goja.Value {
	p.asBot("chat.sendMessage")
	req := new(svcv1.SendMessageRequest)
	p.fromJS("chat.sendMessage", call.Argument(0), req)
	res, err := p.h.eng.SendMessage(p.ctx, p.bot, req)
	if err != nil {
		p.throwEngine("chat.sendMessage", err)
	}
	return p.toJS(res.GetMessage())
}

func (p *instance) react(call goja.FunctionCall) goja.Value {
	p.asBot("chat.react")
	req := &svcv1.ReactRequest{MessageId: p.str(call, 0), Emoji: p.str(call, 1), Remove: call.Argument(2).ToBoolean()}
	res, err := p.h.eng.React(p.ctx, p.bot, req)
	if err != nil {
		p.throwEngine("chat.react", err)
	}
	return p.toJS(res.GetMessage())
}

func (p *instance) editMessage(call goja.FunctionCall) goja.Value {
	p.asBot("chat.editMessage")
	res, err := p.h.eng.EditMessage(p.ctx, p.bot, &svcv1.EditMessageRequest{MessageId: p.str(call, 0), Text: p.str(call, 1)})
	if err != nil {
		p.throwEngine("chat.editMessage", err)
	}
	return p.toJS(res.GetMessage())
}

func (p *instance) deleteMessage(call goja.FunctionCall) goja.Value {
	p.asBot("chat.deleteMessage")
	if _, err := p.h.eng.DeleteMessage(p.ctx, p.bot, &svcv1.DeleteMessageRequest{MessageId: p.str(call, 0)}); err != nil {
		p.throwEngine("chat.deleteMessage", err)
	}
	return goja.Undefined()
}

// reader is who the read-only views read as: the bot, which an instance gets once its top
// level has run (on a first install the bot does not exist before); at the top level the
// views throw.
func (p *instance) reader(what string) engine.Caller {
	if p.topLevel || p.bot.ID == "" {
		p.throw("%s is not available at the top level: the plugin reads as its bot from its hooks and timers", what)
	}
	return p.bot
}

func (p *instance) getMember(call goja.FunctionCall) goja.Value {
	m, err := p.h.eng.GetMember(p.ctx, p.reader("chat.getMember"), p.str(call, 0))
	if err != nil {
		p.throwEngine("chat.getMember", err)
	}
	if m == nil {
		return goja.Null()
	}
	return p.toJS(m)
}

func (p *instance) listMembers(call goja.FunctionCall) goja.Value {
	res, err := p.h.eng.ListMembers(p.ctx, p.reader("chat.listMembers"), &svcv1.ListMembersRequest{})
	if err != nil {
		p.throwEngine("chat.listMembers", err)
	}
	return p.toJSList(res.GetMembers())
}

func (p *instance) listChannels(call goja.FunctionCall) goja.Value {
	chs, err := p.h.eng.SeenChannels(p.ctx, p.reader("chat.listChannels"))
	if err != nil {
		p.throwEngine("chat.listChannels", err)
	}
	return p.toJSList(chs)
}

func (p *instance) every(call goja.FunctionCall) goja.Value {
	secs := call.Argument(0).ToFloat()
	if !(secs >= minEvery.Seconds()) {
		p.throw("chat.every: seconds must be at least %.0f; got %v", minEvery.Seconds(), call.Argument(0))
	}
	if secs > maxEvery.Seconds() {
		p.throw("chat.every: seconds must be at most %s (365 days); got %v", thousands(int(maxEvery.Seconds())), call.Argument(0))
	}
	fn, ok := goja.AssertFunction(call.Argument(1))
	if !ok {
		p.throw("chat.every(seconds, fn): fn must be a function")
	}
	if len(p.timers) >= maxTimers {
		p.throw("chat.every: a plugin has at most %d timers", maxTimers)
	}
	t := &timer{p: p, every: time.Duration(secs * float64(time.Second)), fn: fn}
	p.timers = append(p.timers, t)
	if !p.topLevel {
		t.arm()
	}
	return goja.Undefined()
}

func (p *instance) storeGet(call goja.FunctionCall) goja.Value {
	v, ok, err := p.h.eng.PluginStoreGet(p.name, p.str(call, 0))
	if err != nil {
		p.throwEngine("chat.store.get", err)
	}
	if !ok {
		return goja.Undefined()
	}
	out, err := p.sb.parse(goja.Undefined(), p.sb.vm.ToValue(string(v)))
	if err != nil {
		panic(err)
	}
	return out
}

func (p *instance) storeSet(call goja.FunctionCall) goja.Value {
	if p.topLevel {
		p.throw("chat.store.set is not available at the top level: a top level that fails must change nothing")
	}
	key := p.str(call, 0)
	v, err := p.sb.stringify(goja.Undefined(), call.Argument(1))
	if err != nil {
		panic(err)
	}
	if goja.IsUndefined(v) {
		p.throw("chat.store.set(%q, value): the value has no JSON form; use chat.store.delete to remove a key", key)
	}
	if err := p.h.eng.PluginStoreSet(p.name, key, []byte(v.String())); err != nil {
		p.throwEngine("chat.store.set", err)
	}
	return goja.Undefined()
}

func (p *instance) storeDelete(call goja.FunctionCall) goja.Value {
	if p.topLevel {
		p.throw("chat.store.delete is not available at the top level: a top level that fails must change nothing")
	}
	if err := p.h.eng.PluginStoreDelete(p.name, p.str(call, 0)); err != nil {
		p.throwEngine("chat.store.delete", err)
	}
	return goja.Undefined()
}

// consoleLine writes console output to the server log, tagged with the plugin; past the rate,
// lines are dropped and counted. The rate runs on the host's clock, as the bots' send rate
// runs on the engine's.
func (p *instance) consoleLine(level string) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		if !p.console.AllowN(p.h.clock.Now(), 1) {
			p.dropped++
			return goja.Undefined()
		}
		var b strings.Builder
		for i, a := range call.Arguments {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(p.display(a))
			if b.Len() > consoleMax {
				break
			}
		}
		line := clip(b.String(), consoleMax)
		attrs := []any{"plugin", p.name, "line", line}
		if p.dropped > 0 {
			attrs = append(attrs, "dropped_before", p.dropped)
			p.dropped = 0
		}
		log := p.h.log
		switch level {
		case "warn":
			log.Warn("plugin console", attrs...)
		case "error":
			log.Error("plugin console", attrs...)
		case "debug":
			log.Debug("plugin console", attrs...)
		default:
			log.Info("plugin console", attrs...)
		}
		return goja.Undefined()
	}
}

// display is how console shows a value: strings as they are, objects as JSON.
func (p *instance) display(v goja.Value) string {
	if _, ok := v.(*goja.Object); ok {
		if _, isFn := goja.AssertFunction(v); !isFn {
			if s, err := p.sb.stringify(goja.Undefined(), v); err == nil && !goja.IsUndefined(s) {
				return s.String()
			}
		}
	}
	return v.String()
}

// clip makes text a script gave fit to show: valid UTF-8 (a JavaScript string may hold lone
// surrogates, which proto strings and logs refuse) of at most max bytes, cut at a character.
func clip(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// str is argument i as a string (undefined as "").
func (p *instance) str(call goja.FunctionCall, i int) string {
	a := call.Argument(i)
	if goja.IsUndefined(a) || goja.IsNull(a) {
		return ""
	}
	return a.String()
}
