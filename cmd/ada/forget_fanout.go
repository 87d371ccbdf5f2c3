package main

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

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

// each tells the bridge's tables, then the bridge of this process if any,
// and joins their errors: one failing does not keep the other from hearing.
func (f *forgetFanout) each(tell func(core.ForgetListener) error) error {
	err := tell(f.bridge)
	if b := f.bot.Load(); b != nil {
		err = errors.Join(err, tell(*b))
	}
	return err
}

func (f *forgetFanout) DocumentsForgotten(ctx context.Context, ids []string) error {
	return f.each(func(l core.ForgetListener) error { return l.DocumentsForgotten(ctx, ids) })
}

func (f *forgetFanout) PersonForgotten(ctx context.Context, userID, roomID string, at time.Time) error {
	return f.each(func(l core.ForgetListener) error { return l.PersonForgotten(ctx, userID, roomID, at) })
}

func (f *forgetFanout) RoomForgotten(ctx context.Context, roomID string) error {
	return f.each(func(l core.ForgetListener) error { return l.RoomForgotten(ctx, roomID) })
}
