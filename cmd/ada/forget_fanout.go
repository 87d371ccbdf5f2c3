package main

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// forgetFanout is the core's core.ForgetListener: what core deletes,
// through any door, goes from the bridge's tables (in this database,
// whether or not the bridge runs) and, when the bridge runs in this
// process, from its rooms' memory.
type forgetFanout struct {
	bridge *storage.Bridge
	// bot is the bridge of this process, set once it is built; nil without.
	bot atomic.Pointer[core.ForgetListener]
}

// setBot makes the bridge of this process hear what core deletes.
func (f *forgetFanout) setBot(l core.ForgetListener) { f.bot.Store(&l) }

func (f *forgetFanout) DocumentsForgotten(ctx context.Context, ids []string) error {
	err := f.bridge.DocumentsForgotten(ctx, ids)
	if b := f.bot.Load(); b != nil {
		err = errors.Join(err, (*b).DocumentsForgotten(ctx, ids))
	}
	return err
}

func (f *forgetFanout) PersonForgotten(ctx context.Context, userID, roomID string) error {
	err := f.bridge.PersonForgotten(ctx, userID, roomID)
	if b := f.bot.Load(); b != nil {
		err = errors.Join(err, (*b).PersonForgotten(ctx, userID, roomID))
	}
	return err
}

func (f *forgetFanout) RoomForgotten(ctx context.Context, roomID string) error {
	err := f.bridge.RoomForgotten(ctx, roomID)
	if b := f.bot.Load(); b != nil {
		err = errors.Join(err, (*b).RoomForgotten(ctx, roomID))
	}
	return err
}
