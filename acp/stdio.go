package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"sync"
)

// The library ends the connection when the input ends, answered or not. A client that
// writes its requests and closes its end (`printf ... | ouro acp`) is owed the answers,
// so the input reaches the library through a pipe that closes only once every request
// read has been answered (or ctx ends). After the end, nothing ouro asks the client can
// be answered: questions are refused at once (see inputClosed).
type tap struct {
	mu      sync.Mutex
	pending map[string]bool // ids of the client's requests not answered yet
	idle    chan struct{}   // a token whenever pending may have emptied
	ended   chan struct{}   // closed at the end of the input
	// opened runs once the answer naming a new session has been written (see afterNew);
	// later counts those running.
	opened map[string]func()
	later  sync.WaitGroup
	start  chan struct{} // closed once the connection is in place: no input before
}

func newTap() *tap {
	return &tap{pending: map[string]bool{}, idle: make(chan struct{}, 1), ended: make(chan struct{}), opened: map[string]func(){}, start: make(chan struct{})}
}

// envelope is what the tap reads of a JSON-RPC message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result *struct {
		SessionID string `json:"sessionId"`
	} `json:"result"`
}

// afterNew runs f once session/new's answer naming id has reached the client: updates
// about a session the client has not been told of yet would be dropped.
func (t *tap) afterNew(id string, f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opened[id] = f
}

// input copies in to the returned reader line by line, noting the requests.
func (t *tap) input(ctx context.Context, in io.Reader) io.Reader {
	r, w := io.Pipe()
	go func() {
		<-t.start
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				var e envelope
				if json.Unmarshal(line, &e) == nil && e.Method != "" && len(e.ID) > 0 && string(e.ID) != "null" {
					t.mu.Lock()
					t.pending[string(e.ID)] = true
					t.mu.Unlock()
				}
				if _, werr := w.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				close(t.ended)
				t.drain(ctx)
				w.CloseWithError(err)
				return
			}
		}
	}()
	return r
}

// drain waits until every request read has its answer, or ctx ends.
func (t *tap) drain(ctx context.Context) {
	for {
		t.mu.Lock()
		n := len(t.pending)
		t.mu.Unlock()
		if n == 0 {
			t.later.Wait()
			return
		}
		select {
		case <-t.idle:
		case <-ctx.Done():
			return
		}
	}
}

// output writes the library's messages to out, noting the answers.
func (t *tap) output(out io.Writer) io.Writer { return tapWriter{t, out} }

type tapWriter struct {
	t   *tap
	out io.Writer
}

func (w tapWriter) Write(p []byte) (int, error) {
	n, err := w.out.Write(p) // one message per Write (the library marshals, then writes)
	var e envelope
	if json.Unmarshal(p, &e) == nil && e.Method == "" && len(e.ID) > 0 {
		w.t.mu.Lock()
		var then func()
		if e.Result != nil && e.Result.SessionID != "" {
			if then = w.t.opened[e.Result.SessionID]; then != nil {
				w.t.later.Add(1) // before the answer counts, so drain waits for it
				delete(w.t.opened, e.Result.SessionID)
			}
		}
		delete(w.t.pending, string(e.ID))
		w.t.mu.Unlock()
		if then != nil {
			go func() { // it writes too, and the library holds its write lock here
				defer w.t.later.Done()
				then()
			}()
		}
		select {
		case w.t.idle <- struct{}{}:
		default:
		}
	}
	return n, err
}

// whileOpen is ctx, cancelled too when the input ends: for questions to the client.
func (t *tap) whileOpen(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-t.ended:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// closed reports whether the input has ended.
func (t *tap) closed() bool {
	select {
	case <-t.ended:
		return true
	default:
		return false
	}
}
