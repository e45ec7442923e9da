package store

import (
	"errors"

	"github.com/dgraph-io/badger/v4"

	"hearth/engine/store/storepb"
)

// Key prefixes of the plugins' storage (chat.store); see doc.go.
const (
	prefixPluginValue byte = 0xC0
	prefixPluginUsage byte = 0xC1
)

// PluginValue reads one value a plugin stored (JSON text); ErrNotFound when there is none.
func (r *Reader) PluginValue(plugin, k string) ([]byte, error) {
	item, err := r.txn.Get(key(prefixPluginValue, plugin, k))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

// PluginStoreUsage is what a plugin's stored values take; zero when it has none.
func (r *Reader) PluginStoreUsage(plugin string) (*storepb.PluginStoreUsage, error) {
	u := new(storepb.PluginStoreUsage)
	err := r.getProto(key(prefixPluginUsage, plugin), u)
	if errors.Is(err, ErrNotFound) {
		return u, nil
	}
	return u, err
}

// PluginKeys returns up to limit keys a plugin stored, in key order.
func (r *Reader) PluginKeys(plugin string, limit int) ([]string, error) {
	prefix := append(key(prefixPluginValue, plugin), sep)
	var out []string
	err := r.scan(prefix, nil, false, true, func(k []byte, _ *badger.Item) (bool, error) {
		out = append(out, string(k[len(prefix):]))
		return len(out) < limit, nil
	})
	return out, err
}

func (b *Batch) PutPluginValue(plugin, k string, v []byte) error {
	return b.set(key(prefixPluginValue, plugin, k), v)
}

func (b *Batch) DeletePluginValue(plugin, k string) error {
	return b.delete(key(prefixPluginValue, plugin, k))
}

// PutPluginStoreUsage records a plugin's usage; a zero usage deletes the row.
func (b *Batch) PutPluginStoreUsage(plugin string, u *storepb.PluginStoreUsage) error {
	if u.GetBytes() == 0 && u.GetKeys() == 0 {
		return b.delete(key(prefixPluginUsage, plugin))
	}
	return b.putProto(key(prefixPluginUsage, plugin), u)
}
