package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	svcv1 "hearth/proto/svc/v1"
)

// The crash test of the writes that span the bucket and the database: members upload files,
// send them in messages and delete some of those messages, and the owner adds emoji, while
// the real binary is killed with SIGKILL; after each start, every message's files and every
// emoji's image are served with the bytes that were uploaded, and everything acknowledged is
// there (a deletion acknowledged stays done: the message a tombstone without files). Three
// rounds on one data directory.

const (
	fileCrashRounds  = 3
	fileCrashWorkers = 4
)

// fileLedger is what the server acknowledged.
type fileLedger struct {
	mu      sync.Mutex
	content map[string][]byte // upload id -> the bytes uploaded
	sent    map[string]string // message id -> its upload's id
	deleted map[string]bool   // message ids whose deletion was acknowledged
	emoji   map[string][]byte // emoji name -> its image
}

func (l *fileLedger) note(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
}

func TestKill9LeavesNoRowWithoutItsFile(t *testing.T) {
	t.Parallel()
	c := startCrashCommunity(t, "files", "uploader-", "10.2.0.", fileCrashWorkers)
	data, owner, chID := c.data, c.owner, c.chID
	book := &fileLedger{content: map[string][]byte{}, sent: map[string]string{}, deleted: map[string]bool{}, emoji: map[string][]byte{}}
	for round := range fileCrashRounds {
		// The sandbox starts with the first upload (compiling its guest on a new data folder):
		// start it before the load, so that the kill finds uploads under way.
		if err := postFile(context.Background(), c.url+"/upload", owner.token, "warm.txt", []byte("warm"), &svcv1.Attachment{}); err != nil {
			t.Fatal(err)
		}
		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for i := range fileCrashWorkers {
			m := loginAs(t, data, c.url, fmt.Sprint("uploader-", i), "")
			wg.Add(1)
			go func() {
				defer wg.Done()
				uploadSendDelete(ctx, c.url, m, chID, fmt.Sprintf("r%d-w%d", round, i), book)
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			addEmoji(ctx, c.url, loginAs(t, data, c.url, "owner", ""), fmt.Sprintf("r%d", round), book)
		}()
		// The kill comes once this round has had some of each acknowledged (how long that takes
		// depends on the machine: a fixed time found nothing done on a busy one), and a moment
		// later, so that it finds more under way.
		var sent0, emoji0 int
		book.note(func() { sent0, emoji0 = len(book.sent), len(book.emoji) })
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			var grew bool
			book.note(func() { grew = len(book.sent) > sent0 && len(book.emoji) > emoji0 })
			if grew {
				break
			}
		}
		time.Sleep(time.Duration(100+100*round) * time.Millisecond)
		c.killAndRestart(t, stop, &wg)
		owner = loginAs(t, data, c.url, "owner", "")
		files, emoji := checkFiles(t, c.url, owner, chID, book)
		t.Logf("round %d: %d messages with a file and %d emoji served whole after kill -9", round+1, files, emoji)
	}
	if len(book.sent) < fileCrashRounds || len(book.emoji) < fileCrashRounds {
		t.Fatalf("only %d messages with files and %d emoji were acknowledged: the load did not run", len(book.sent), len(book.emoji))
	}
}

// uploadSendDelete uploads a file, sends it in a message and deletes every third such message,
// until ctx ends, the server dies or its upload budget is spent, writing down what the server
// acknowledged.
func uploadSendDelete(ctx context.Context, url string, m *member, chID, prefix string, book *fileLedger) {
	for n := 0; ctx.Err() == nil; n++ {
		content := bytes.Repeat([]byte(fmt.Sprintf("%s-f%04d\n", prefix, n)), 2000)
		var att svcv1.Attachment
		if postFile(ctx, url+"/upload", m.token, "file.txt", content, &att) != nil {
			return
		}
		book.note(func() { book.content[att.GetId()] = content })
		res, err := m.chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: chID, Text: prefix, AttachmentIds: []string{att.GetId()}}))
		if err != nil {
			if connect.CodeOf(err) == connect.CodeResourceExhausted {
				continue
			}
			return
		}
		id := res.Msg.GetMessage().GetId()
		book.note(func() { book.sent[id] = att.GetId() })
		if n%3 != 2 {
			continue
		}
		if _, err := m.chat.DeleteMessage(ctx, connect.NewRequest(&svcv1.DeleteMessageRequest{MessageId: id})); err != nil {
			return
		}
		book.note(func() { book.deleted[id] = true })
	}
}

// addEmoji adds one emoji a request until ctx ends, the server dies or the budget is spent.
func addEmoji(ctx context.Context, url string, m *member, prefix string, book *fileLedger) {
	for n := 0; ctx.Err() == nil; n++ {
		name := fmt.Sprintf("%s_e%04d", prefix, n)
		img := tinyPNG(n)
		var res svcv1.UploadEmojiResponse
		if postFile(ctx, url+"/emoji", m.token, name+".png", img, &res) != nil {
			return
		}
		if r := res.GetResults(); len(r) == 1 && r[0].GetStatus() == svcv1.EmojiUploadStatus_EMOJI_UPLOAD_STATUS_ADDED {
			book.note(func() { book.emoji[name] = img })
		}
	}
}

// tinyPNG is a 4x4 PNG whose pixels tell n apart.
func tinyPNG(n int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	img.Set(0, 0, color.NRGBA{R: uint8(n), G: uint8(n >> 8), B: 7, A: 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// postFile posts content as the one part "file" of a multipart body and decodes the JSON
// answer into out; any answer but 200 is an error.
func postFile(ctx context.Context, endpoint, token, name string, content []byte, out proto.Message) error {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, _ := w.CreateFormFile("file", name)
	part.Write(content)
	w.Close()
	r, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, &body)
	r.Header.Set("Content-Type", w.FormDataContentType())
	r.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %d %s", endpoint, res.StatusCode, b)
	}
	return protojson.Unmarshal(b, out)
}

// fetchOK GETs path from the server and returns the body of a 200.
func fetchOK(t *testing.T, url, path string) []byte {
	t.Helper()
	res, err := http.Get(url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, res.StatusCode, b)
	}
	return b
}

// checkFiles checks every message of the channel and every emoji against the bucket and the
// ledger; it returns how many messages with files and emoji it checked.
func checkFiles(t *testing.T, url string, owner *member, chID string, book *fileLedger) (int, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	book.mu.Lock()
	defer book.mu.Unlock()
	listed := map[string]bool{}
	before := ""
	for {
		page, err := owner.chat.ListMessages(ctx, connect.NewRequest(&svcv1.ListMessagesRequest{ChannelId: chID, BeforeId: before, Limit: 200}))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Msg.GetMessages() {
			listed[m.GetId()] = true
			if book.deleted[m.GetId()] && !m.GetDeleted() {
				t.Fatalf("message %s is there though its deletion was acknowledged", m.GetId())
			}
			if m.GetDeleted() && len(m.GetAttachments()) > 0 {
				t.Fatalf("deleted message %s still has files", m.GetId())
			}
			for _, a := range m.GetAttachments() {
				want, known := book.content[a.GetId()]
				if !known {
					t.Fatalf("message %s has a file %s that no acknowledged upload made", m.GetId(), a.GetId())
				}
				if got := fetchOK(t, url, a.GetUrl()); !bytes.Equal(got, want) {
					t.Fatalf("file %s of message %s: %d bytes served, %d uploaded", a.GetId(), m.GetId(), len(got), len(want))
				}
			}
		}
		if !page.Msg.GetHasMore() || len(page.Msg.GetMessages()) == 0 {
			break
		}
		before = page.Msg.GetMessages()[0].GetId()
	}
	for id := range book.sent {
		if !book.deleted[id] && !listed[id] {
			t.Fatalf("acknowledged message %s with file %s is gone", id, book.sent[id])
		}
	}

	var list svcv1.ListEmojiResponse
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/emoji", nil)
	r.Header.Set("Authorization", "Bearer "+owner.token)
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /emoji: %d %s", res.StatusCode, b)
	}
	if err := protojson.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, e := range list.GetEmoji() {
		served[e.GetName()] = true
		got := fetchOK(t, url, strings.TrimPrefix(e.GetUrl(), testBase))
		if want, known := book.emoji[e.GetName()]; known && !bytes.Equal(got, want) {
			t.Fatalf("emoji %s: %d bytes served, %d uploaded", e.GetName(), len(got), len(want))
		}
	}
	for name := range book.emoji {
		if !served[name] {
			t.Fatalf("acknowledged emoji %s is gone", name)
		}
	}
	return len(listed), len(served)
}
