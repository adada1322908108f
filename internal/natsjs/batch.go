package natsjs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
)

// ErrConflict is returned when a compared revision was no longer the stored one: the
// server wrote nothing of the batch.
var ErrConflict = errors.New("a compared revision changed concurrently")

// Write is one message of an atomic batch on a KV bucket: a put of Value at Key, a
// delete of Key, or a check that Key is still at Rev (which writes nothing a reader of
// the bucket's keys sees).
type Write struct {
	Key    string
	Value  []byte
	Delete bool
	// Check makes this a revision check of Key, without writing Key.
	Check bool
	// Rev is the revision Key must still have (0: Key must not exist); Any skips the check.
	Rev uint64
	Any bool
}

// checkKey is the key that check messages are written to: a KV key no store reads.
const checkKey = "_check"

// Batch writes ws to bucket's stream as one atomic batch: the server compares every
// revision and applies all of the writes or none of them. It returns the stream sequence
// of the last write (the revision that key now has). Writes must name distinct keys.
func (c *Conn) Batch(ctx context.Context, bucket string, ws []Write) (uint64, error) {
	if len(ws) == 0 {
		return 0, nil
	}
	var err error
	leaderless := time.Now().Add(c.timeout())
	msgID := nuid.Next() // one write, however often it is sent (see errLost)
	lost := false
	for attempt := 1; attempt <= 50; attempt++ {
		var seq uint64
		seq, err = c.batchOnce(ctx, bucket, ws, msgID)
		if errors.Is(err, errLost) {
			lost = true
		}
		if lost && errors.Is(err, ErrConflict) {
			// The revision moved since the lost attempt: by that attempt itself?
			if seq, ok := c.storedBy(ctx, bucket, ws[0].Key, msgID); ok {
				return seq, nil
			}
		}
		if (errors.Is(err, nats.ErrNoResponders) || errors.Is(err, errLost)) && time.Now().Before(leaderless) {
			// Nobody took the write, so nothing was written: a replicated stream
			// between leaders (just made, or its leader's node just died). Wait for
			// the election, within the timeout, before calling the bucket gone.
			attempt--
			select {
			case <-ctx.Done():
				return 0, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		if err == nil || !errors.Is(err, errRetry) {
			return seq, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(time.Duration(rand.IntN(min(attempt, 10)*500)+100) * time.Microsecond):
		}
	}
	if strings.Contains(err.Error(), "last sequence") {
		// Still busy with other writes of these keys: for the caller, a conflict.
		return 0, ErrConflict
	}
	return 0, fmt.Errorf("JetStream bucket %s kept refusing a batch of %d writes: %w", bucket, len(ws), err)
}

var errRetry = errors.New("retry")

// errLost is a single write whose acknowledgement did not come within its attempt (the
// request went to a node that died, or the answer was lost): it is sent again, with the
// same message id. Had the first been stored, the stream refuses the second for its
// revision (it compares revisions before it looks for duplicates), and the key's last
// message, carrying that id, says the write is done.
var errLost = errors.New("the acknowledgement was lost")

type pubAck struct {
	Seq   uint64 `json:"seq"`
	Error *struct {
		Code        int    `json:"code"`
		ErrCode     int    `json:"err_code"`
		Description string `json:"description"`
	} `json:"error"`
}

// JetStream's error codes met by a batch.
const (
	codeWrongLastSequence         = 10071
	codeWrongLastSequenceConstant = 10164
	codeIncompleteBatch           = 10176
	codeTooManyInflight           = 10210
)

func (c *Conn) batchOnce(ctx context.Context, bucket string, ws []Write, msgID string) (uint64, error) {
	// One write needs no batch: a plain publish with its expected revision is as atomic,
	// and the server stages no batch for it (a batch costs ~10ms more on one server).
	single := len(ws) == 1
	id := nuid.Next()
	prefix := "$KV." + bucket + "."
	// A check goes first (the server refuses a check of a key the batch already wrote).
	order := make([]Write, 0, len(ws))
	for _, w := range ws {
		if w.Check {
			order = append(order, w)
		}
	}
	for _, w := range ws {
		if !w.Check {
			order = append(order, w)
		}
	}
	for i, w := range order {
		m := nats.NewMsg(prefix + w.Key)
		if w.Check {
			m.Subject = prefix + checkKey
			m.Header.Set("Nats-Expected-Last-Subject-Sequence-Subject", prefix+w.Key)
		}
		if !w.Any {
			m.Header.Set("Nats-Expected-Last-Subject-Sequence", strconv.FormatUint(w.Rev, 10))
		}
		if w.Delete {
			m.Header.Set("KV-Operation", "DEL")
		} else {
			m.Data = w.Value
		}
		if single {
			m.Header.Set("Nats-Msg-Id", msgID)
		} else {
			m.Header.Set("Nats-Batch-Id", id)
			m.Header.Set("Nats-Batch-Sequence", strconv.Itoa(i+1))
		}
		if i < len(order)-1 {
			if err := c.NC.PublishMsg(m); err != nil {
				return 0, fmt.Errorf("JetStream bucket %s: %w", bucket, err)
			}
			continue
		}
		if !single {
			m.Header.Set("Nats-Batch-Commit", "1")
		}
		wait := c.timeout()
		if single {
			wait = min(2*time.Second, wait)
		}
		rctx, cancel := context.WithTimeout(ctx, wait)
		resp, err := c.NC.RequestMsgWithContext(rctx, m)
		cancel()
		if err != nil {
			if errors.Is(err, nats.ErrNoResponders) {
				return 0, fmt.Errorf("JetStream bucket %s has no stream answering (was it deleted, or is the cluster without a leader?): %w", bucket, err)
			}
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			if single {
				return 0, fmt.Errorf("JetStream bucket %s did not acknowledge a write within %s: %w", bucket, c.timeout(), errLost)
			}
			// A timeout leaves the outcome unknown: the batch may have been applied. The
			// caller's next compare-and-set reads what is there.
			return 0, fmt.Errorf("JetStream bucket %s did not acknowledge a write within %s (it may or may not have been applied): %w", bucket, c.timeout(), err)
		}
		var ack pubAck
		if err := json.Unmarshal(resp.Data, &ack); err != nil {
			return 0, fmt.Errorf("JetStream bucket %s answered a write with %q", bucket, resp.Data)
		}
		if ack.Error != nil {
			switch ack.Error.ErrCode {
			case codeWrongLastSequence:
				return 0, ErrConflict
			case codeWrongLastSequenceConstant, codeIncompleteBatch, codeTooManyInflight:
				// In a cluster, a key whose last write the leader is still applying cannot
				// be compared yet (10164): nothing was written, try again shortly.
				return 0, fmt.Errorf("%w: %s", errRetry, ack.Error.Description)
			}
			return 0, fmt.Errorf("JetStream bucket %s refused a write: %s (error %d)", bucket, ack.Error.Description, ack.Error.ErrCode)
		}
		return ack.Seq, nil
	}
	return 0, nil
}

// storedBy reports whether the last write of key in bucket is the message msgID, and its
// sequence (the key's revision).
func (c *Conn) storedBy(ctx context.Context, bucket, key, msgID string) (uint64, bool) {
	var seq uint64
	var ok bool
	_ = c.Retry(ctx, func(ctx context.Context) error {
		st, err := c.JS.Stream(ctx, "KV_"+bucket)
		if err != nil {
			return err
		}
		m, err := st.GetLastMsgForSubject(ctx, "$KV."+bucket+"."+key)
		if err != nil {
			return err
		}
		seq, ok = m.Sequence, m.Header.Get("Nats-Msg-Id") == msgID
		return nil
	})
	return seq, ok
}
