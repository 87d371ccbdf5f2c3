package bottest

import (
	"context"
	"slices"

	"maunium.net/go/mautrix/crypto/attachment"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// Upload is a file a member sends, the way Matrix clients send one.
type Upload struct {
	Data     []byte
	MimeType string
	FileName string
	// Caption becomes the body (Matrix 1.10 captions); without it the body
	// is the file's name.
	Caption string
	// MsgType defaults to m.image.
	MsgType event.MessageType
	// Encrypted sends an encrypted attachment: the ciphertext is uploaded
	// and the key travels in the message's `file`, as clients do in
	// encrypted rooms. Otherwise the message carries a plain `url`.
	Encrypted bool
	// Size is the declared info.size; 0 declares the real size, -1 none.
	Size int
	// ReplyTo makes the message a reply.
	ReplyTo id.EventID
}

// SendUpload uploads u's data to the homeserver's media repository and
// posts the message that refers to it.
func (m *Member) SendUpload(room id.RoomID, u Upload) id.EventID {
	m.t.Helper()
	ctx := context.Background()
	content := &event.MessageEventContent{MsgType: u.MsgType, Body: u.FileName, FileName: u.FileName,
		Info: &event.FileInfo{MimeType: u.MimeType, Size: len(u.Data)}}
	if content.MsgType == "" {
		content.MsgType = event.MsgImage
	}
	if u.Caption != "" {
		content.Body = u.Caption
	}
	switch {
	case u.Size < 0:
		content.Info.Size = 0
	case u.Size > 0:
		content.Info.Size = u.Size
	}
	data, uploadType := u.Data, u.MimeType
	var file *attachment.EncryptedFile
	if u.Encrypted {
		file = attachment.NewEncryptedFile()
		data = slices.Clone(u.Data)
		file.EncryptInPlace(data)
		uploadType = "application/octet-stream"
	}
	resp, err := m.Client.UploadBytesWithName(ctx, data, uploadType, u.FileName)
	if err != nil {
		m.t.Fatalf("%s: upload %s: %v", m.Client.UserID, u.FileName, err)
	}
	if file != nil {
		content.File = &event.EncryptedFileInfo{EncryptedFile: *file, URL: resp.ContentURI.CUString()}
	} else {
		content.URL = resp.ContentURI.CUString()
	}
	if u.ReplyTo != "" {
		content.RelatesTo = (&event.RelatesTo{}).SetReplyTo(u.ReplyTo)
	}
	return m.Send(room, content)
}
