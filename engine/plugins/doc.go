// Package plugins runs the community's JavaScript plugins: one file per plugin in
// <data>/plugins, each run by its own goja runtime on its own goroutine, as its own bot.
//
// The host is an adapter over the engine, like web: it follows the event log with an
// engine.Follower as the plugin's bot (so a plugin hears what its bot may see, in log order)
// and calls the engine's methods as that bot, under the same rules as any bot. The engine
// never imports this package; web.Open sets the host as the engine's JoinHook, through which
// Join asks the plugins before it changes anything. No JavaScript runs inside a writer change.
//
// Files: host.go (the host and the BotService plugin calls), folder.go (the plugins folder),
// instance.go (one loaded plugin and its goroutine), chat.go (the chat object), join.go (the
// JoinHook), convert.go (objects between Go and JavaScript), limits.go (time, heap and the
// turn), harden.go, builders.go, coerce.go, prelude.js and source.go (the built-ins and syntax
// a plugin may not use to get around the limits: builders.go has the string and array builders
// written in Go, coerce.go converts what a check measures once). docs/plugins.md is the plugin
// author's reference.
package plugins
