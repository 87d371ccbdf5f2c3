package bot

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/specialists/transcribe"
)

// sayOgg speaks text into an Ogg/Opus file, as Element records voice
// messages, with Debian's espeak-ng and opus-tools (make apt-deps).
func sayOgg(t *testing.T, text string) []byte {
	t.Helper()
	for _, tool := range []string{"espeak-ng", "opusenc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing (make apt-deps installs it)", tool)
			}
			t.Skipf("%s is missing (make apt-deps installs it)", tool)
		}
	}
	dir := t.TempDir()
	wav, ogg := filepath.Join(dir, "voice.wav"), filepath.Join(dir, "voice.ogg")
	for _, cmd := range [][]string{{"espeak-ng", "-w", wav, text}, {"opusenc", "--quiet", wav, ogg}} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, out)
		}
	}
	data, err := os.ReadFile(ogg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fakeSTT is a speech-to-text server speaking OpenAI's multipart protocol.
// It cannot hear: it knows the transcript of each file the test made, by
// its bytes, and refuses anything that is not Ogg/Opus.
type fakeSTT struct {
	*httptest.Server
	mu    sync.Mutex
	texts map[[32]byte]string
	holds map[[32]byte]chan struct{}
	calls int
}

func newFakeSTT(t *testing.T) *fakeSTT {
	f := &fakeSTT{texts: map[[32]byte]string{}, holds: map[[32]byte]chan struct{}{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file, _, err := r.FormFile("file")
		if r.URL.Path != "/v1/audio/transcriptions" || err != nil || r.FormValue("model") == "" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		data, _ := io.ReadAll(file)
		f.mu.Lock()
		f.calls++
		text, ok := f.texts[sha256.Sum256(data)]
		hold := f.holds[sha256.Sum256(data)]
		f.mu.Unlock()
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		if !ok || !bytes.HasPrefix(data, []byte("OggS")) || !bytes.Contains(data, []byte("OpusHead")) {
			http.Error(w, `{"error":{"message":"not audio I know"}}`, http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"text": text})
	}))
	t.Cleanup(f.Close)
	return f
}

// voice makes a voice message saying text, known to the fake.
func (f *fakeSTT) voice(t *testing.T, text string) []byte {
	data := sayOgg(t, text)
	f.mu.Lock()
	f.texts[sha256.Sum256(data)] = text
	f.mu.Unlock()
	return data
}

// held makes a voice message saying text whose transcription waits until
// the returned channel is closed.
func (f *fakeSTT) held(t *testing.T, text string) ([]byte, chan struct{}) {
	data := f.voice(t, text)
	hold := make(chan struct{})
	f.mu.Lock()
	f.holds[sha256.Sum256(data)] = hold
	f.mu.Unlock()
	return data, hold
}

// voiceMessage is an Element voice message with data as its audio.
func voiceMessage(data []byte, encrypted bool) bottest.Upload {
	return bottest.Upload{Data: data, MimeType: "audio/ogg", FileName: "Voice message.ogg", MsgType: event.MsgAudio, Encrypted: encrypted}
}

// TestBridgeVoice: a voice message in an encrypted DM is decrypted,
// transcribed and answered with the transcript quoted; in a group room only
// when the transcript holds the keyword; an oversized one gets a plain
// notice; without TRANSCRIBE_URL a DM gets a note that voice is not enabled.
func TestBridgeVoice(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	stt := newFakeSTT(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	const maxAudio = 256 << 10
	bot := startBot(t, botSettings(hs, llm, acct, t.TempDir(), func(s *botSetup) {
		s.Transcriber = transcribe.New(transcribe.Options{BaseURL: stt.URL, Model: "whisper-1", MaxBytes: maxAudio})
	}))
	alice := bottest.NewMember(t, hs, "alice", true)
	bob := bottest.NewMember(t, hs, "bob", false)

	t.Run("EncryptedDM", func(t *testing.T) {
		room := alice.CreateRoom(&mautrix.ReqCreateRoom{InitialState: bottest.EncryptedRoom(), Invite: []id.UserID{acct.UserID}})
		alice.Wait("intro", bottest.MessageFrom(room, acct.UserID, event.MsgNotice))
		llm.Script(llmtest.Reply{Tokens: []string{"It is Paris."}})
		asked := alice.SendUpload(room, voiceMessage(stt.voice(t, "What is the capital of France?"), true))
		reply := alice.Wait("the answer", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
		body := reply.Content.AsMessage().Body
		if !strings.HasPrefix(body, "> 🎙️ What is the capital of France?") || !strings.HasSuffix(body, "It is Paris.") {
			t.Errorf("reply = %q, want the transcript quoted, then the answer", body)
		}
		reqs := llm.ChatRequests()
		if last := fmtMessages(reqs[len(reqs)-1].Messages); !strings.Contains(last, "What is the capital of France?") {
			t.Errorf("the model was not asked the transcript:\n%s", last)
		}
		alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
		assertNoPlaintextFrom(t, alice, room, acct.UserID)

		t.Run("SlowTranscriptionLeavesTheRoomFree", func(t *testing.T) {
			data, hold := stt.held(t, "Tell me a joke.")
			llm.Script(llmtest.Reply{Tokens: []string{"A joke."}})
			asked := alice.SendUpload(room, voiceMessage(data, true))
			help := alice.Say(room, "!ada help")
			alice.Wait("help while the voice message is being transcribed", bottest.ReplyTo(acct.UserID, help, event.MsgNotice))
			close(hold)
			alice.Wait("the answer", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
		})

		t.Run("Oversized", func(t *testing.T) {
			u := voiceMessage(stt.voice(t, "a very long story"), true)
			u.Size = maxAudio + 1
			big := alice.SendUpload(room, u)
			n := alice.Wait("notice", bottest.ReplyTo(acct.UserID, big, event.MsgNotice))
			if !strings.Contains(n.Content.AsMessage().Body, "too long") {
				t.Errorf("notice = %q, want it to say the voice message is too long", n.Content.AsMessage().Body)
			}
		})
	})

	t.Run("PrivacyModeStoresNoTranscript", func(t *testing.T) {
		room := alice.CreateRoom(&mautrix.ReqCreateRoom{Invite: []id.UserID{acct.UserID}})
		alice.Wait("intro", bottest.MessageFrom(room, acct.UserID, event.MsgNotice))
		off := alice.Say(room, "!ada privacy off")
		alice.Wait("privacy confirmed", bottest.ReplyTo(acct.UserID, off, event.MsgNotice))
		llm.Script(llmtest.Reply{Tokens: []string{"Noted, but not stored."}})
		asked := alice.SendUpload(room, voiceMessage(stt.voice(t, "My locker code is 4242."), false))
		alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
		if n := bot.count(`SELECT count(*) FROM documents WHERE text LIKE '%4242%'`) +
			bot.count(`SELECT count(*) FROM bridge_messages WHERE text LIKE '%4242%'`); n != 0 {
			t.Errorf("privacy mode: the transcript was stored %d times", n)
		}
	})

	t.Run("GroupRoomNeedsTheKeyword", func(t *testing.T) {
		room := alice.CreateRoom(&mautrix.ReqCreateRoom{Invite: []id.UserID{acct.UserID, bob.Client.UserID}})
		bob.Join(room)
		alice.Wait("intro", bottest.MessageFrom(room, acct.UserID, event.MsgNotice))
		idle := bob.SendUpload(room, voiceMessage(stt.voice(t, "I am just talking to Alice."), false))
		llm.Script(llmtest.Reply{Tokens: []string{"Hello Bob."}})
		asked := bob.SendUpload(room, voiceMessage(stt.voice(t, "Hey Ada, say hello."), false))
		alice.Wait("the answer", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
		// The room's messages are handled in order: the first was done with.
		if n := len(alice.Find(bottest.AnyReactionTo(idle))) + len(alice.Find(func(e *event.Event) bool {
			return bottest.ReplyTo(acct.UserID, idle, event.MsgText)(e) || bottest.ReplyTo(acct.UserID, idle, event.MsgNotice)(e)
		})); n != 0 {
			t.Errorf("a voice message without the keyword got %d reactions or replies", n)
		}
	})

	t.Run("NotEnabled", func(t *testing.T) {
		acct2 := bottest.RegisterAccount(t, hs, "ada2")
		startBot(t, botSettings(hs, llm, acct2, t.TempDir()))
		room := alice.CreateRoom(&mautrix.ReqCreateRoom{Invite: []id.UserID{acct2.UserID}})
		alice.Wait("intro", bottest.MessageFrom(room, acct2.UserID, event.MsgNotice))
		asked := alice.SendUpload(room, voiceMessage(stt.voice(t, "Can you hear me?"), false))
		n := alice.Wait("notice", bottest.ReplyTo(acct2.UserID, asked, event.MsgNotice))
		if n.Content.AsMessage().Body != voiceNotEnabled {
			t.Errorf("notice = %q, want %q", n.Content.AsMessage().Body, voiceNotEnabled)
		}
	})
}
