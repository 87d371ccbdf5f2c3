// Package bot is Ada's Matrix bridge: an invitation-only bot that answers in
// rooms and direct chats, encrypted ones included, by calling a Backend (the
// chat core in-process, or Ada's HTTP API). It owns the bridge tables of
// storage/migrations/0002_bridge.sql. It may import core and config; it must
// not import apiserver, storage or cmd (cmd picks the Backend).
package bot
