package blob

// The bucket drivers -bucket may name. Registering them is the one side effect of
// importing this package, and no other package registers drivers. gs:// and azblob://
// roughly double the binary (about 31 MB with s3 and file alone, 67 MB with all).
import (
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
)
