package plugins

import (
	"encoding/json"

	"github.com/dop251/goja"

	svcv1 "hearth/proto/svc/v1"
)

// The chat calls of pins and polls (EXTENSIONS.md 2 and 4), as the plugin's bot: the same
// calls, rules and errors as any bot's. Replies need none of their own: chat.sendMessage takes
// replyToId (and poll) like any field of SendMessageRequest.

func (p *instance) pin(call goja.FunctionCall) goja.Value {
	p.asBot("chat.pin")
	res, err := p.h.eng.PinMessage(p.ctx, p.bot, &svcv1.PinMessageRequest{MessageId: p.str(call, 0)})
	if err != nil {
		p.throwEngine("chat.pin", err)
	}
	return p.toJS(res.GetMessage())
}

func (p *instance) unpin(call goja.FunctionCall) goja.Value {
	p.asBot("chat.unpin")
	res, err := p.h.eng.UnpinMessage(p.ctx, p.bot, &svcv1.UnpinMessageRequest{MessageId: p.str(call, 0)})
	if err != nil {
		p.throwEngine("chat.unpin", err)
	}
	return p.toJS(res.GetMessage())
}

func (p *instance) listPins(call goja.FunctionCall) goja.Value {
	res, err := p.h.eng.ListPins(p.ctx, p.reader("chat.listPins"), &svcv1.ListPinsRequest{ChannelId: p.str(call, 0)})
	if err != nil {
		p.throwEngine("chat.listPins", err)
	}
	return p.toJSList(res.GetMessages())
}

// vote takes the option ids as a list of strings (an empty list, null or undefined withdraw the
// bot's vote). The list is read through the hardened JSON.stringify, which bounds it.
func (p *instance) vote(call goja.FunctionCall) goja.Value {
	const what = "chat.vote"
	p.asBot(what)
	req := &svcv1.VotePollRequest{MessageId: p.str(call, 0)}
	if arg := call.Argument(1); !goja.IsUndefined(arg) && !goja.IsNull(arg) {
		o, ok := arg.(*goja.Object)
		if !ok || o.ClassName() != "Array" {
			p.throw("%s(messageId, optionIds): optionIds must be a list of strings", what)
		}
		s, err := p.sb.stringify(goja.Undefined(), arg)
		if err != nil {
			panic(err)
		}
		if err := json.Unmarshal([]byte(s.String()), &req.OptionIds); err != nil {
			p.throw("%s(messageId, optionIds): optionIds must be a list of strings", what)
		}
	}
	res, err := p.h.eng.VotePoll(p.ctx, p.bot, req)
	if err != nil {
		p.throwEngine(what, err)
	}
	return p.toJS(res.GetMessage())
}

func (p *instance) closePoll(call goja.FunctionCall) goja.Value {
	p.asBot("chat.closePoll")
	res, err := p.h.eng.ClosePoll(p.ctx, p.bot, &svcv1.ClosePollRequest{MessageId: p.str(call, 0)})
	if err != nil {
		p.throwEngine("chat.closePoll", err)
	}
	return p.toJS(res.GetMessage())
}
