// Package backup writes and restores Hearth's backups: one file that brings a server back on
// a fresh machine.
//
// A backup is a gzip-compressed tar archive (so `tar tzf` lists it and `tar xzf` takes a key
// out of it by hand), in this order:
//
//	hearth-backup.json   the Manifest: format, the server's version, when, what it holds
//	db/00000001 ...      the database in Badger's backup format (store.DB.Backup), read by
//	                     the running server in one read transaction (a consistent
//	                     snapshot), cut into parts because a tar entry must declare its
//	                     size before its bytes
//	issuer-key, file-key, plugins/..., files/...
//	                     every other file of the data directory, by its path in it
//
// The data directory is carried whole but for what is rebuilt or scratch (Skipped): the
// database's own folder (its stream is carried instead), caches, temporary files, the admin
// socket, and the file bucket's folder unless it is the bucket in use. So state that a new
// feature keeps in the database or as a file under the data directory is in every backup
// without a line here; only a new scratch folder needs adding to Skipped.
//
// The database goes first and the files after it, while the bucket holds its deletions
// (blob.Bucket.HoldDeletes): every object a row of the snapshot points at was stored before
// that row was committed, and is still there when it is copied. An object stored after the
// snapshot may come along too; without a row it is an orphan the cleanup sweeps.
//
// Restore fills an empty data directory: it unpacks into a staging folder inside it, loads
// the database there, and moves everything into place only when the whole archive was read
// and its checksum verified, so a damaged backup leaves the directory as it was.
package backup
