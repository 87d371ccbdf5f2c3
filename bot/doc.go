// Package bot is Ada's Matrix bridge: an invitation-only bot that answers in
// rooms and direct chats, encrypted ones included, by calling a Backend (the
// chat core in-process, or Ada's HTTP API). Its own state (bot facts, room
// settings, recent messages, links) is storage.Bridge, used directly. It may
// import core, config and storage; it must not import apiserver or cmd (cmd
// picks the Backend).
//
// # Layout
//
// A room event goes downhill: the sync handlers (handlers.go) filter it and
// queue it per room (the roomqueue package); the room's job hands it to the one type
// whose job it is, and that type sends through matrix. Each type holds only
// what it needs (Bot.build):
//
//   - messageHandler (messages.go): a room message: context, then a command,
//     an upload or a question; the busy reply for a full queue.
//   - membership (membership.go): invites, the introduction, leaving.
//   - answerer (answer*.go): asks the backend, posts the reply, shows the
//     state with reactions and typing, records what the answer stored. A
//     question waits for the model in its room's answer line (a second
//     roomqueue, answer_line.go), not in the room's queue: commands and
//     other messages of the room go on meanwhile, a question behind another
//     says that it waits, and answers are posted, back in the room's queue,
//     in the order of their questions. !ada status shows how the latest
//     chats went (chat_health.go), not only whether the model is there.
//   - commands (commands*.go): `!ada ...`, one file per family.
//   - streamer (stream.go): with STREAM_EDITS, the Matrix encoder of an
//     answer's chat events: the first sentence posted, then throttled
//     edits (m.replace), the final edit the whole answer. streams.on is
//     the one place that decides whether a room streams.
//   - media (media.go): which image a question is about, and its OCR.
//   - voice (voice.go): m.audio transcribed (Transcriber) and handled as
//     the transcript, which the reply quotes.
//   - window (window.go): each room's recent messages, the model's context.
//   - settings (settings*.go, commands_settings.go): each room's own
//     settings (`!ada set`), a table-driven registry: a setting is one
//     entry in settingsTable and one field of answerSettings, which the
//     answer applies to its request and reply.
//   - quotas (quota.go): each room's counted answers and tokens, checked
//     before a question is accepted; one notice per quota window.
//   - reply chains (reply_chain.go): the messages a question replies to,
//     fetched from the homeserver, as context.
//   - forgetting (forget*.go): redactions and retention; the links from a
//     room event to what it caused (turns, memories, Ada's replies).
//   - webLinks (web.go): `!ada web`, a one-time link to the memory page
//     sent by direct message (a chat Ada makes and reuses); Bot.Redeem and
//     Bot.JoinedRooms (web_members.go) answer the page about members,
//     Bot.LinkOpen and Bot.RoomNames (web_rooms.go) about links and rooms.
//   - matrix (matrix.go): sending, encrypted where the room is (reactions
//     and edits too); the room state sends depend on. It decides nothing.
//
// Bot itself (bot.go, login.go, crypto.go) connects, sets up encryption and
// runs the sync loop; rooms.go is the per-room memory the types share, each
// field touched by the room's own jobs only.
//
// # Redactions and edits
//
// Everything a member's message causes is linked to it (storage.BridgeLink):
// the turns of its answer, the memory of a `!ada remember`, and every event
// Ada posts for it as she posts it (her answer's parts, each edit of a
// streamed answer, her 🧠 ✅ ❌ reactions, a command's confirmation). A redaction
// deletes the message's stored text and what is linked to it, and redacts
// Ada's linked replies, which leave the room's context too: they may quote
// what the member took back. Confirmations of `remember` and `forget` quote
// only an excerpt (at most four words, never the whole text) and the
// memory's short id.
//
// A redaction is never lost (forget_pending.go): it is recorded in the
// bridge's state as it arrives, then applied before the room's waiting jobs
// (never refused by a full queue), retried with backoff when it fails, and
// applied at the next start when the process stopped or died first. A
// message the redaction overtook is not handled; an answer to a redacted
// question that was waiting or being made when it arrived stops there:
// the model is cancelled, nothing more is posted, and what was posted goes
// (answer_takeback.go; a link made after the cascade ran makes the
// redaction pending again).
//
// An edit (m.replace) by the message's own sender replaces the message
// (messages_edit.go): what the old text caused is undone as for a
// redaction, then the new text (m.new_content) is handled as a new message
// with the original's id: kept as context, run as a command, or answered
// when it addresses Ada. An edit that newly addresses Ada is therefore
// answered once, as a reply to the original; an edit of an answered
// question replaces the answer and what was learned from it; an edit of
// other chatter only updates the context. An edit that arrives as backlog
// (sent while the bridge was down) is undone and kept as context but not
// answered, like any backlog message. Edits of uploads, notices and Ada's
// own edits are ignored.
//
// `!ada forget <number>` uses the numbers of the listing the member saw
// (each member's last `!ada memories`); the short id beside each memory
// (its first 8 hex digits) and the full id work too; forgetting a memory
// that is gone says so.
//
// # Stops and what came while down
//
// A stopping bridge stops syncing first, then answers what it accepted
// (the room queues share a roomqueue.Work it waits on), for at most
// Options.ShutdownGrace. A question still not answered then gets ❌ and a
// notice to ask again (roomqueue's OnStop, answerer's interrupted; at most
// roomqueue.StopReportTime each): it is not answered after the restart. Messages sent before the process started, and
// those from before Ada's latest join of their room (joins.go), are backlog
// (isBacklog): context, never answered or run. In a direct chat the first message
// the catch-up /sync of a resumed bridge brings, sent while it was down,
// gets one "I was offline" notice (offline.go); group rooms stay silent.
//
// # Images
//
// Ada reads the text in images (OCR, through Backend.OCR) and gives it to
// the model as context for a question (core.ChatRequest.OCRContext). An
// image belongs to a question in these cases, checked in this order:
//
//  1. A message addressed to Ada that replies to an image (m.image, or an
//     m.file) is about that image, whoever sent it: "Ada, what does this
//     say?" as a reply. A reply to any other message gets no image.
//  2. An image addressed to Ada is a question in itself: in a direct chat,
//     or with a caption that mentions Ada or uses her name or a keyword. The
//     caption is the question; without one it is "What does this image
//     say?". A file name is never a caption ("ada.png" wakes nobody).
//  3. Otherwise a message addressed to Ada takes along the sender's latest
//     image in the room from the 5 minutes before it (imageWindow): members
//     upload a picture first and then ask about it. Other members' images
//     never come along.
//
// Images are refused, with ❌ and a short notice and without asking the
// model, when OCR is not available, when the file says it is not an image,
// when it is larger than OCR_MAX_BYTES (by its declared size before
// downloading, or while downloading), or when its bytes are not a
// supported image. An image that failed is not taken along again (3).
//
// Encrypted attachments (`file`) are decrypted in memory. Image bytes are
// never written anywhere, and only event ids are kept in memory for rule 3:
// the image is fetched again when it is needed. Its text goes into the
// prompt only; the room's context records "[image: name] caption".
package bot
