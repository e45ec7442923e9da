package plugins

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"hearth/engine"
	"hearth/engine/clock"
	svcv1 "hearth/proto/svc/v1"
)

// Options configure a Host. Zero values take the defaults noted.
type Options struct {
	// Dir is the plugins folder, <data>/plugins (required).
	Dir string
	// Clock runs the timers of chat.every (default the wall clock); the engine's clock in a
	// server, so that tests move both.
	Clock clock.Clock
	Log   *slog.Logger
	// HookLimit bounds one hook, timer or join request (default 500 ms); TopLevelLimit the
	// top level (default 1 s).
	HookLimit, TopLevelLimit time.Duration
	// HeapLimit bounds how much the live heap may grow during one run (default 64 MB).
	HeapLimit uint64
	// QueueLimit is how many events a plugin may fall behind the log before it is stopped
	// (default 1,000).
	QueueLimit int
	// MaxCallStack bounds the depth of JavaScript calls (default 500).
	MaxCallStack int
	// JoinWait bounds how long Join waits for the plugins' joinRequest hooks (default 2 s);
	// MessageWait how long a send or an edit waits for their beforeMessage hooks (default
	// 50 ms).
	JoinWait, MessageWait time.Duration
}

// SourceMax bounds a plugin's source, in bytes (API.md: 256 KB; a KB is 1,000 bytes here as
// for emoji and uploads).
const SourceMax = 256_000

// Host runs the plugins of a community: it loads the plugins folder at start, answers the
// plugin calls of BotService, and is the engine's JoinHook.
type Host struct {
	eng    *engine.Engine
	opts   Options
	log    *slog.Logger
	clock  clock.Clock
	folder folder
	runner *runner

	// manage serializes the calls that change plugins (and Close).
	manage sync.Mutex
	// mu guards plugins and the entries' fields.
	mu      sync.Mutex
	plugins map[string]*entry
	closed  bool
}

// entry is one plugin of the folder.
type entry struct {
	name    string
	enabled bool
	inst    *instance // while it runs
	err     string
}

// New loads the plugins in opts.Dir and runs the enabled ones. A plugin that fails to load is
// listed with its error; only a folder that cannot be read fails New.
func New(eng *engine.Engine, opts Options) (*Host, error) {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.HookLimit == 0 {
		opts.HookLimit = 500 * time.Millisecond
	}
	if opts.TopLevelLimit == 0 {
		opts.TopLevelLimit = time.Second
	}
	if opts.HeapLimit == 0 {
		opts.HeapLimit = 64 << 20
	}
	if opts.QueueLimit == 0 {
		opts.QueueLimit = 1000
	}
	if opts.MaxCallStack == 0 {
		opts.MaxCallStack = 500
	}
	if opts.JoinWait == 0 {
		opts.JoinWait = 2 * time.Second
	}
	if opts.MessageWait == 0 {
		opts.MessageWait = 50 * time.Millisecond
	}
	h := &Host{
		eng: eng, opts: opts, log: opts.Log, clock: opts.Clock,
		folder:  folder{dir: opts.Dir},
		runner:  newRunner(opts.HeapLimit),
		plugins: map[string]*entry{},
	}
	files, skipped, err := h.folder.list()
	if err != nil {
		return nil, fmt.Errorf("read the plugins folder: %w", err)
	}
	for _, n := range skipped {
		h.log.Warn("not a plugin: the plugins folder holds only <name>.js and <name>.js.disabled", "file", n)
	}
	h.manage.Lock()
	defer h.manage.Unlock()
	for _, f := range files {
		if err := engine.CheckPluginName(f.name); err != nil {
			h.log.Warn("plugin file skipped: its name is not a valid username", "plugin", f.name)
			continue
		}
		e := &entry{name: f.name, enabled: f.enabled}
		h.plugins[f.name] = e
		if f.enabled {
			h.startFromFolder(e)
		}
	}
	eng.SetJoinHook(h)
	eng.SetMessageHook(h)
	return h, nil
}

// Close stops every plugin.
func (h *Host) Close() {
	h.manage.Lock()
	defer h.manage.Unlock()
	h.mu.Lock()
	h.closed = true
	var running []*instance
	for _, e := range h.plugins {
		if e.inst != nil {
			running = append(running, e.inst)
			e.inst = nil
		}
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range running {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.stop()
		}()
	}
	wg.Wait()
}

// startFromFolder loads an enabled plugin's file and starts it, recording why it could not.
// Call with h.manage held.
func (h *Host) startFromFolder(e *entry) {
	src, err := h.folder.read(e.name, true, SourceMax)
	if err != nil {
		h.setState(e, nil, loadError(err))
		return
	}
	if err := h.dropOrphanValues(e.name); err != nil {
		h.setState(e, nil, loadError(err))
		return
	}
	p, err := h.load(e.name, src)
	if err != nil {
		h.setState(e, nil, loadError(err))
		return
	}
	bot, err := h.eng.EnsurePluginBot(e.name)
	if err != nil {
		p.discard()
		h.setState(e, nil, loadError(err))
		return
	}
	if err := h.begin(e, p, bot); err != nil {
		h.setState(e, nil, loadError(err))
	}
}

// dropOrphanValues deletes the stored values under name when no bot has that name. A plugin's
// stored values belong to its bot: a plugin that will get a new bot starts with an empty store
// (its top level included), whatever a DeletePlugin cut short by a crash under an earlier
// version left under that name. Call with h.manage held, before the plugin loads (nothing else
// makes a plugin's bot or runs the plugin meanwhile).
func (h *Host) dropOrphanValues(name string) error {
	if h.eng.PluginBots()[name] != "" {
		return nil
	}
	return h.eng.DeletePluginStore(name)
}

// begin starts a loaded instance as e's running instance, as bot, stopping the one it
// replaces. Call with h.manage held.
func (h *Host) begin(e *entry, p *instance, bot engine.Caller) error {
	h.mu.Lock()
	old := e.inst
	e.inst = nil
	h.mu.Unlock()
	if old != nil {
		old.stop()
	}
	if err := p.start(bot); err != nil {
		p.discard()
		return err
	}
	h.setState(e, p, "")
	return nil
}

func (h *Host) setState(e *entry, p *instance, err string) {
	h.mu.Lock()
	e.inst, e.err = p, err
	h.mu.Unlock()
	if err != "" {
		h.log.Warn("plugin not running", "plugin", e.name, "err", err)
	}
}

// loadError is why a plugin did not load, as Plugin.error says it.
func loadError(err error) string {
	var ee *engine.Error
	if errors.As(err, &ee) {
		return ee.Msg
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "its file is missing"
	}
	return describe(err)
}

// recordError notes a hook failure of a running instance.
func (h *Host) recordError(p *instance, msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e := h.plugins[p.name]; e != nil && e.inst == p {
		e.err = clip(msg, errorMax)
	}
}

// stopped notes that a limit stopped a running instance, and tells the admins.
func (h *Host) stopped(p *instance, reason string) {
	h.mu.Lock()
	e := h.plugins[p.name]
	current := e != nil && e.inst == p && !h.closed
	if current {
		e.inst, e.err = nil, clip("stopped: "+reason, errorMax)
	}
	h.mu.Unlock()
	if !current {
		return
	}
	h.log.Warn("plugin stopped", "plugin", p.name, "reason", reason)
	go func() {
		if err := h.eng.PluginsChanged(); err != nil && engine.CodeOf(err) != engine.CodeUnavailable {
			h.log.Error("announcing a stopped plugin", "plugin", p.name, "err", err)
		}
	}()
}

// view is a plugin as the API shows it.
func (h *Host) view(e *entry, bots map[string]string) *svcv1.Plugin {
	h.mu.Lock()
	defer h.mu.Unlock()
	return &svcv1.Plugin{Name: e.name, Enabled: e.enabled, Running: e.inst != nil, Error: e.err, BotId: bots[e.name]}
}

// List is ListPlugins.
func (h *Host) List(ctx context.Context, c engine.Caller, _ *svcv1.ListPluginsRequest) (*svcv1.ListPluginsResponse, error) {
	if err := h.eng.RequireAdmin(c, "listing plugins"); err != nil {
		return nil, err
	}
	h.mu.Lock()
	names := make([]string, 0, len(h.plugins))
	for n := range h.plugins {
		names = append(names, n)
	}
	h.mu.Unlock()
	sort.Strings(names)
	bots := h.eng.PluginBots()
	out := &svcv1.ListPluginsResponse{Plugins: []*svcv1.Plugin{}}
	for _, n := range names {
		h.mu.Lock()
		e := h.plugins[n]
		h.mu.Unlock()
		if e != nil {
			out.Plugins = append(out.Plugins, h.view(e, bots))
		}
	}
	return out, nil
}

// Install is InstallPlugin: the new source runs its top level in a runtime of its own; only if
// that succeeds does anything change (the bot made on a first install, the file written, the
// old instance replaced).
func (h *Host) Install(ctx context.Context, c engine.Caller, req *svcv1.InstallPluginRequest) (*svcv1.InstallPluginResponse, error) {
	if err := h.eng.RequirePluginManager(c, strings.TrimSuffix(req.GetName(), enabledExt), "installing plugins"); err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(req.GetName(), enabledExt)
	if err := engine.CheckPluginName(name); err != nil {
		return nil, err
	}
	if n := len(req.GetSource()); n > SourceMax {
		return nil, invalid("source is %s bytes; the limit is %s (256 KB)", thousands(n), thousands(SourceMax))
	}
	if err := h.eng.PluginNameFree(name); err != nil {
		return nil, err
	}
	h.manage.Lock()
	defer h.manage.Unlock()
	if err := h.open(); err != nil {
		return nil, err
	}
	if err := h.dropOrphanValues(name); err != nil {
		return nil, err
	}
	p, err := h.load(name, req.GetSource())
	if err != nil {
		return nil, invalid("the plugin did not load: %s", loadError(err))
	}
	// On a failure from here on nothing may stay: not the bot a first install makes, not an
	// entry (the plugin is listed only once its file is written).
	hadBot := h.eng.PluginBots()[name] != ""
	bot, err := h.eng.EnsurePluginBot(name)
	if err != nil {
		p.discard()
		return nil, err
	}
	if err := h.folder.writeSource(name, req.GetSource()); err != nil {
		p.discard()
		h.log.Error("writing a plugin's file", "plugin", name, "err", err)
		if !hadBot {
			if err := h.eng.DeletePluginBot(name); err != nil {
				h.log.Error("deleting the bot of a plugin whose file could not be written", "plugin", name, "err", err)
			}
		}
		return nil, &engine.Error{Code: engine.CodeInternal, Msg: "the plugin's file could not be written"}
	}
	h.mu.Lock()
	e := h.plugins[name]
	if e == nil {
		e = &entry{name: name}
		h.plugins[name] = e
	}
	e.enabled = true
	h.mu.Unlock()
	if err := h.begin(e, p, bot); err != nil {
		h.setState(e, nil, loadError(err))
	}
	h.announceBy(c, svcv1.AuditAction_AUDIT_ACTION_PLUGIN_INSTALLED, name)
	return &svcv1.InstallPluginResponse{Plugin: h.view(e, h.eng.PluginBots())}, nil
}

// SetEnabled is SetPluginEnabled. Enabling a plugin that is enabled but not running (it failed)
// loads it again.
func (h *Host) SetEnabled(ctx context.Context, c engine.Caller, req *svcv1.SetPluginEnabledRequest) (*svcv1.SetPluginEnabledResponse, error) {
	if err := h.eng.RequirePluginManager(c, strings.TrimSuffix(req.GetName(), enabledExt), "enabling and disabling plugins"); err != nil {
		return nil, err
	}
	h.manage.Lock()
	defer h.manage.Unlock()
	if err := h.open(); err != nil {
		return nil, err
	}
	e, err := h.entry(req.GetName())
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	enabled, running := e.enabled, e.inst
	h.mu.Unlock()
	switch {
	case req.GetEnabled() && enabled && running != nil, !req.GetEnabled() && !enabled:
		// Nothing to change.
	case req.GetEnabled():
		if !enabled {
			if err := h.folder.rename(e.name, true); err != nil {
				return nil, h.fileError(e.name, err)
			}
		}
		h.mu.Lock()
		e.enabled = true
		h.mu.Unlock()
		h.startFromFolder(e)
		h.announceBy(c, svcv1.AuditAction_AUDIT_ACTION_PLUGIN_ENABLED, e.name)
	default:
		h.mu.Lock()
		e.inst, e.err = nil, ""
		h.mu.Unlock()
		if running != nil {
			running.stop()
		}
		if err := h.folder.rename(e.name, false); err != nil {
			// Its file still says enabled, and it runs again at the next start: it is listed
			// so, stopped, with why.
			h.setState(e, nil, fmt.Sprintf("stopped: disabling it failed (its file could not be renamed to %s.js.disabled); it runs again when enabled or at the next start", e.name))
			h.announce()
			return nil, h.fileError(e.name, err)
		}
		h.mu.Lock()
		e.enabled = false
		h.mu.Unlock()
		h.announceBy(c, svcv1.AuditAction_AUDIT_ACTION_PLUGIN_DISABLED, e.name)
	}
	return &svcv1.SetPluginEnabledResponse{Plugin: h.view(e, h.eng.PluginBots())}, nil
}

// Delete is DeletePlugin: the plugin stops, its files, its bot (not the bot's messages) and its
// stored values are deleted.
func (h *Host) Delete(ctx context.Context, c engine.Caller, req *svcv1.DeletePluginRequest) (*svcv1.DeletePluginResponse, error) {
	if err := h.eng.RequirePluginManager(c, strings.TrimSuffix(req.GetName(), enabledExt), "deleting plugins"); err != nil {
		return nil, err
	}
	h.manage.Lock()
	defer h.manage.Unlock()
	if err := h.open(); err != nil {
		return nil, err
	}
	e, err := h.entry(req.GetName())
	if engine.CodeOf(err) == engine.CodeNotFound {
		return h.deleteLeftovers(c, strings.TrimSuffix(req.GetName(), enabledExt), err)
	}
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	running := e.inst
	e.inst = nil
	h.mu.Unlock()
	if running != nil {
		running.stop()
	}
	// The stored values go first, the bot last: a crash or a failure at any step leaves the
	// plugin (its file, or its bot, which deleteLeftovers finds) for a DeletePlugin to finish,
	// and never values without a plugin, which the next plugin of that name would inherit.
	// The values take several changes (a chunk each); while they go the plugin is stopped,
	// and a crash among them leaves it with what is left, to be deleted again.
	// A step that fails leaves the plugin listed, stopped, with why.
	unfinished := func(step string) {
		h.setState(e, nil, "stopped: DeletePlugin did not finish ("+step+"); delete it again")
		h.announce()
	}
	if err := h.eng.DeletePluginStore(e.name); err != nil {
		unfinished("its stored values could not all be deleted")
		return nil, err
	}
	if err := h.folder.remove(e.name); err != nil {
		unfinished("its stored values are deleted; its file could not be removed")
		return nil, h.fileError(e.name, err)
	}
	h.mu.Lock()
	delete(h.plugins, e.name)
	h.mu.Unlock()
	if err := h.eng.DeletePluginBot(e.name); err != nil {
		return nil, err
	}
	h.announceBy(c, svcv1.AuditAction_AUDIT_ACTION_PLUGIN_DELETED, e.name)
	return &svcv1.DeletePluginResponse{}, nil
}

// deleteLeftovers is DeletePlugin of a name that has no file but still has a bot: the file was
// removed by hand, or a crash cut an earlier DeletePlugin short after the file went. Its bot
// and stored values are deleted, so that no bot is left that no call can delete (DeleteBot
// refuses a plugin's bot). A name without a bot answers notFound.
func (h *Host) deleteLeftovers(c engine.Caller, name string, notFound error) (*svcv1.DeletePluginResponse, error) {
	if h.eng.PluginBots()[name] == "" {
		return nil, notFound
	}
	if err := h.eng.DeletePluginStore(name); err != nil {
		return nil, err
	}
	if err := h.eng.DeletePluginBot(name); err != nil {
		return nil, err
	}
	h.announceBy(c, svcv1.AuditAction_AUDIT_ACTION_PLUGIN_DELETED, name)
	return &svcv1.DeletePluginResponse{}, nil
}

// entry is the plugin a call names: invalid_argument for a name no plugin can have, not_found
// for one no plugin has.
func (h *Host) entry(name string) (*entry, error) {
	name = strings.TrimSuffix(name, enabledExt)
	if err := engine.CheckPluginName(name); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if e := h.plugins[name]; e != nil {
		return e, nil
	}
	return nil, &engine.Error{Code: engine.CodeNotFound, Msg: fmt.Sprintf("there is no plugin named %q", name)}
}

func (h *Host) open() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return engine.ErrClosed
	}
	return nil
}

func (h *Host) fileError(name string, err error) error {
	h.log.Error("changing a plugin's file", "plugin", name, "err", err)
	return &engine.Error{Code: engine.CodeInternal, Msg: "the plugin's file could not be changed"}
}

// announce sends plugins_changed; a failure (the server closing) is only logged.
func (h *Host) announce() {
	h.announceBy(engine.Caller{}, svcv1.AuditAction_AUDIT_ACTION_UNSPECIFIED, "")
}

// announceBy sends plugins_changed and records what c did to the plugin name in the audit log
// (action UNSPECIFIED records nothing).
func (h *Host) announceBy(c engine.Caller, action svcv1.AuditAction, name string) {
	if err := h.eng.PluginChanged(c, action, name); err != nil && engine.CodeOf(err) != engine.CodeUnavailable {
		h.log.Error("announcing a change of plugins", "err", err)
	}
}

func invalid(format string, args ...any) error {
	return &engine.Error{Code: engine.CodeInvalidArgument, Msg: fmt.Sprintf(format, args...)}
}

// thousands formats 256000 as "256,000".
func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
