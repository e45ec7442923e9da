package engine

import (
	"strings"
	"unicode/utf8"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// The plugins' storage (chat.store): JSON values under string keys, per plugin, in Badger.
// Writes go through the writer like every change (they log no event), so a value is durable
// when chat.store.set returns and the quota is checked against what is stored.

const (
	// PluginStoreQuota bounds what one plugin stores: its keys and values together, in bytes
	// (DECISIONS.md: 1 MB; a MB is 1,000,000 bytes here as for uploads).
	PluginStoreQuota = 1_000_000
	// PluginKeysMax bounds how many keys one plugin stores.
	PluginKeysMax = 10_000
	// pluginKeyMax bounds one key, in bytes.
	pluginKeyMax = 256
	// pluginStoreDeleteChunk is how many values one change of DeletePluginStore deletes.
	pluginStoreDeleteChunk = 1000
)

func checkPluginKey(k string) error {
	switch {
	case k == "":
		return invalid("key must not be empty")
	case len(k) > pluginKeyMax:
		return invalid("key is %d bytes; the limit is %d", len(k), pluginKeyMax)
	case !utf8.ValidString(k):
		return invalid("key is not valid UTF-8")
	case strings.ContainsRune(k, 0):
		return invalid("key must not contain the NUL character")
	}
	return nil
}

// PluginStoreGet reads the value a plugin stored under k; ok is false when there is none.
func (e *Engine) PluginStoreGet(plugin, k string) (v []byte, ok bool, err error) {
	if err := checkPluginKey(k); err != nil {
		return nil, false, err
	}
	err = e.db.View(func(r *store.Reader) error {
		v, err = r.PluginValue(plugin, k)
		return err
	})
	if isNotFound(err) {
		return nil, false, nil
	}
	return v, err == nil, err
}

// PluginStoreSet stores v under k for a plugin: resource_exhausted when the plugin's values
// would take more than PluginStoreQuota bytes or PluginKeysMax keys.
func (e *Engine) PluginStoreSet(plugin, k string, v []byte) error {
	if err := checkPluginKey(k); err != nil {
		return err
	}
	if n := len(k) + len(v); n > PluginStoreQuota {
		return newError(CodeResourceExhausted, "the value is %s bytes with its key; a plugin stores at most %s bytes", thousands(n), thousands(PluginStoreQuota))
	}
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		u, old, err := pluginUsage(tx, plugin, k)
		if err != nil {
			return struct{}{}, err
		}
		next := &storepb.PluginStoreUsage{Bytes: u.GetBytes() - old + int64(len(k)+len(v)), Keys: u.GetKeys()}
		if old == 0 {
			next.Keys++
		}
		if next.GetBytes() > PluginStoreQuota {
			return struct{}{}, newError(CodeResourceExhausted, "storing %q would make the plugin's values %s bytes; the limit is %s", k, thousands(int(next.GetBytes())), thousands(PluginStoreQuota))
		}
		if next.GetKeys() > PluginKeysMax {
			return struct{}{}, newError(CodeResourceExhausted, "storing %q would make %s keys; a plugin stores at most %s", k, thousands(int(next.GetKeys())), thousands(PluginKeysMax))
		}
		if err := tx.mutate().PutPluginValue(plugin, k, v); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, tx.mutate().PutPluginStoreUsage(plugin, next)
	})
	return err
}

// PluginStoreDelete deletes the value under k, if any.
func (e *Engine) PluginStoreDelete(plugin, k string) error {
	if err := checkPluginKey(k); err != nil {
		return err
	}
	_, err := submit(e, func(tx *Tx) (struct{}, error) {
		u, old, err := pluginUsage(tx, plugin, k)
		if err != nil || old == 0 {
			return struct{}{}, err
		}
		if err := tx.mutate().DeletePluginValue(plugin, k); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, tx.mutate().PutPluginStoreUsage(plugin, &storepb.PluginStoreUsage{Bytes: u.GetBytes() - old, Keys: u.GetKeys() - 1})
	})
	return err
}

// pluginUsage reads a plugin's usage and what the value under k takes now (0 if none).
func pluginUsage(tx *Tx, plugin, k string) (*storepb.PluginStoreUsage, int64, error) {
	u, err := tx.read().PluginStoreUsage(plugin)
	if err != nil {
		return nil, 0, err
	}
	prev, err := tx.read().PluginValue(plugin, k)
	if isNotFound(err) {
		return u, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	return u, int64(len(k) + len(prev)), nil
}

// PluginStoreUsage is what a plugin's stored values take.
func (e *Engine) PluginStoreUsage(plugin string) (bytes int64, keys int, err error) {
	err = e.db.View(func(r *store.Reader) error {
		u, err := r.PluginStoreUsage(plugin)
		bytes, keys = u.GetBytes(), int(u.GetKeys())
		return err
	})
	return bytes, keys, err
}

// DeletePluginStore deletes everything a plugin stored, a chunk of values per change.
func (e *Engine) DeletePluginStore(plugin string) error {
	for {
		done, err := submit(e, func(tx *Tx) (bool, error) {
			keys, err := tx.read().PluginKeys(plugin, pluginStoreDeleteChunk)
			if err != nil {
				return false, err
			}
			u, err := tx.read().PluginStoreUsage(plugin)
			if err != nil {
				return false, err
			}
			for _, k := range keys {
				v, err := tx.read().PluginValue(plugin, k)
				if err != nil {
					return false, err
				}
				if err := tx.mutate().DeletePluginValue(plugin, k); err != nil {
					return false, err
				}
				u.Bytes -= int64(len(k) + len(v))
				u.Keys--
			}
			if len(keys) < pluginStoreDeleteChunk {
				u = &storepb.PluginStoreUsage{}
			}
			if err := tx.mutate().PutPluginStoreUsage(plugin, u); err != nil {
				return false, err
			}
			return len(keys) < pluginStoreDeleteChunk, nil
		})
		if err != nil || done {
			return err
		}
	}
}
