// Package natsjs connects ouro's distributed stores to NATS JetStream (nats.go's
// jetstream package): it reads a store URL (nats://HOST:PORT with credentials and TLS
// options in its query), connects, checks that JetStream is there, explains the errors
// a user meets (unreachable server, refused credentials, no JetStream), opens the KV
// buckets the stores keep their records in, and publishes atomic batches: several KV
// writes, each compared with the revision it was read at, that the server applies all
// together or not at all.
package natsjs

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// IsURL reports whether s names a NATS store (rather than a path or nothing).
func IsURL(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "nats://") || strings.HasPrefix(s, "tls://")
}

// Config is a parsed store URL.
type Config struct {
	// Servers are the server URLs, without ouro's query options.
	Servers []string
	// Creds is a credentials file (a user JWT and its nkey seed, as nsc writes it).
	Creds string
	// NKey is a file holding an nkey seed (SU...), for servers that authorize by nkey.
	NKey string
	// CA is a PEM file of the certificate authorities to trust; Cert and Key are a client
	// certificate and its key, for servers that verify clients.
	CA, Cert, Key string
	// Replicas is how many servers keep each bucket (0: 3 on a cluster, else 1).
	Replicas int
	// Timeout bounds connecting and each request (0: 5s).
	Timeout time.Duration
	// Namespace, when set, separates this installation's buckets and streams from those
	// of others on the same account (letters and digits).
	Namespace string
}

// Parse reads a store URL: nats://[user:pass@]HOST:PORT[,nats://HOST2:PORT...] with
// optional query parameters creds, nkey, ca, cert, key, replicas and timeout (a Go
// duration). tls:// asks for TLS without a CA of its own.
func Parse(raw string) (Config, error) {
	var c Config
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return c, errors.New("the store URL is empty; write nats://HOST:PORT")
	}
	known := map[string]*string{"creds": &c.Creds, "nkey": &c.NKey, "ca": &c.CA, "cert": &c.Cert, "key": &c.Key}
	for _, part := range strings.Split(raw, ",") {
		u, err := url.Parse(strings.TrimSpace(part))
		if err != nil {
			return c, fmt.Errorf("the store URL %q cannot be read (%v); write nats://HOST:PORT", redact(raw), err)
		}
		if u.Scheme != "nats" && u.Scheme != "tls" {
			return c, fmt.Errorf("the store URL %q has scheme %q; ouro's distributed stores are on NATS JetStream: write nats://HOST:PORT (or tls://HOST:PORT)", redact(raw), u.Scheme)
		}
		if u.Hostname() == "" {
			return c, fmt.Errorf("the store URL %q names no host; write nats://HOST:PORT", redact(raw))
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n <= 0 || n > 65535 {
				return c, fmt.Errorf("the store URL %q has port %q; a port is a number from 1 to 65535", redact(raw), p)
			}
		}
		if u.Path != "" && u.Path != "/" {
			return c, fmt.Errorf("the store URL %q has a path (%s); a NATS URL is nats://HOST:PORT with options after '?'", redact(raw), u.Path)
		}
		for k, vs := range u.Query() {
			v := vs[len(vs)-1]
			switch {
			case known[k] != nil:
				*known[k] = v
			case k == "replicas":
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > 5 {
					return c, fmt.Errorf("the store URL's replicas=%q: JetStream keeps 1 to 5 replicas", v)
				}
				c.Replicas = n
			case k == "ns":
				if v == "" || len(v) > 32 || strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
					return c, fmt.Errorf("the store URL's ns=%q: a namespace is 1 to 32 letters and digits", v)
				}
				c.Namespace = v
			case k == "timeout":
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					return c, fmt.Errorf("the store URL's timeout=%q is no duration (write 5s, 500ms)", v)
				}
				c.Timeout = d
			default:
				return c, fmt.Errorf("the store URL has an unknown option %q; the options are creds, nkey, ca, cert, key, replicas, ns and timeout", k)
			}
		}
		u.RawQuery, u.Fragment, u.Path = "", "", ""
		c.Servers = append(c.Servers, u.String())
	}
	if (c.Cert == "") != (c.Key == "") {
		return c, errors.New("the store URL gives a client certificate without its key (or a key without its certificate); give both cert= and key=")
	}
	if c.Creds != "" && c.NKey != "" {
		return c, errors.New("the store URL gives both creds= and nkey=; a connection authenticates one way: give one")
	}
	for _, f := range []struct{ opt, path string }{{"creds", c.Creds}, {"nkey", c.NKey}, {"ca", c.CA}, {"cert", c.Cert}, {"key", c.Key}} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			return c, fmt.Errorf("the store URL's %s= file cannot be read: %v", f.opt, err)
		}
	}
	return c, nil
}

// redact hides a password in a URL that is about to be shown.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return u.String()
		}
	}
	return raw
}

// Where names the servers for messages (without passwords or options).
func (c Config) Where() string {
	var out []string
	for _, s := range c.Servers {
		if u, err := url.Parse(s); err == nil {
			out = append(out, u.Host)
		}
	}
	return strings.Join(out, ",")
}

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return 5 * time.Second
}

// Conn is a connection with JetStream.
type Conn struct {
	NC  *nats.Conn
	JS  jetstream.JetStream
	Cfg Config

	bucketMu sync.Mutex
}

// Connect connects to the servers of c and checks that JetStream answers.
func Connect(ctx context.Context, c Config, name string) (*Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.Timeout(c.timeout()), nats.MaxReconnects(-1), nats.ReconnectWait(500 * time.Millisecond)}
	if c.Creds != "" {
		opts = append(opts, nats.UserCredentials(c.Creds))
	}
	if c.NKey != "" {
		o, err := nats.NkeyOptionFromSeed(c.NKey)
		if err != nil {
			return nil, fmt.Errorf("the nkey seed file %s cannot be used: %v (it holds one seed, SU..., as nsc or nk -gen user writes it)", c.NKey, err)
		}
		opts = append(opts, o)
	}
	if c.CA != "" {
		opts = append(opts, nats.RootCAs(c.CA))
	}
	if c.Cert != "" {
		opts = append(opts, nats.ClientCert(c.Cert, c.Key))
	}
	nc, err := nats.Connect(strings.Join(c.Servers, ","), opts...)
	if err != nil {
		return nil, explainConnect(c, err)
	}
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(c.timeout()))
	if err != nil {
		nc.Close()
		return nil, err
	}
	if err := accountInfo(ctx, js, c.timeout()); err != nil {
		nc.Close()
		switch {
		case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount):
			return nil, fmt.Errorf("the NATS server at %s has no JetStream for this account; start nats-server with -js (or a jetstream {} block, and jetstream: enabled for the account) — ouro keeps its tasks and journals in JetStream", c.Where())
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout), errors.Is(err, nats.ErrNoResponders):
			return nil, fmt.Errorf("the NATS server at %s did not answer JetStream requests within %s: JetStream is off, or the cluster has no leader yet (%v); start nats-server with -js, or wait for the cluster to form", c.Where(), c.timeout(), err)
		}
		return nil, fmt.Errorf("JetStream at %s: %w", c.Where(), err)
	}
	return &Conn{NC: nc, JS: js, Cfg: c}, nil
}

// accountInfo asks for the JetStream account within limit, in attempts of at most 2 s: a
// request sent on a connection to a node that just died is lost, and its answer would
// otherwise be waited for until the limit while the client has already reconnected to a
// live node.
func accountInfo(ctx context.Context, js jetstream.JetStream, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		actx, acancel := context.WithTimeout(ctx, min(2*time.Second, limit))
		_, err := js.AccountInfo(actx)
		acancel()
		if err == nil || errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func explainConnect(c Config, err error) error {
	switch {
	case errors.Is(err, nats.ErrNoServers):
		return fmt.Errorf("cannot reach a NATS server at %s (%v): is nats-server running there, and is the address right?", c.Where(), err)
	case errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired), errors.Is(err, nats.ErrAuthRevoked):
		return fmt.Errorf("the NATS server at %s refused ouro's credentials (%v); check creds=/nkey= in the store URL (or the user and password in it)", c.Where(), err)
	case strings.Contains(err.Error(), "tls") || strings.Contains(err.Error(), "x509") || strings.Contains(err.Error(), "certificate"):
		return fmt.Errorf("TLS with the NATS server at %s failed (%v); check ca=, cert= and key= in the store URL", c.Where(), err)
	}
	return fmt.Errorf("connecting to NATS at %s: %w", c.Where(), err)
}

// Close closes the connection.
func (c *Conn) Close() { c.NC.Close() }

// Replicas is how many replicas a new bucket gets.
func (c *Conn) Replicas() int {
	if c.Cfg.Replicas > 0 {
		return c.Cfg.Replicas
	}
	if c.NC.ConnectedClusterName() != "" {
		return 3
	}
	return 1
}

// Name makes a bucket or stream name (letters, digits, '-' and '_'): "ouro-KIND-NAME",
// or "ouro_NS-KIND-NAME" in a namespace, NAME escaped (Escape).
func (c Config) Name(kind, name string) string {
	if c.Namespace != "" {
		return "ouro_" + c.Namespace + "-" + kind + "-" + Escape(name)
	}
	return "ouro-" + kind + "-" + Escape(name)
}

// Subject is the root of ouro's subjects: "ouro", or "ouro_NS" in a namespace.
func (c Config) Subject() string {
	if c.Namespace != "" {
		return "ouro_" + c.Namespace
	}
	return "ouro"
}

// Escape makes name usable as a bucket or stream name and as one subject token: '_'
// and anything else outside [A-Za-z0-9-] becomes _XX (hex), so two names never meet.
func Escape(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, "_%02x", ch)
		}
	}
	return b.String()
}

// Bucket is an open KV bucket and the stream it is.
type Bucket struct {
	Name   string
	KV     jetstream.KeyValue
	Stream jetstream.Stream
	conn   *Conn // reads ride out a leader election (Read)
}

// Bucket opens the KV bucket called name, creating it if it does not exist: the stream a
// KV bucket is (KV_name on $KV.name.>), with one value per key and atomic batches allowed
// from the start, so that processes creating it at once agree on its configuration.
// Reads go to the stream's leader (no direct gets from replicas, which may lag behind a
// write just acknowledged).
func (c *Conn) Bucket(ctx context.Context, name, description string) (*Bucket, error) {
	c.bucketMu.Lock()
	defer c.bucketMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 3*c.timeout())
	defer cancel()
	st, err := c.JS.Stream(ctx, "KV_"+name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		st, err = c.JS.CreateStream(ctx, jetstream.StreamConfig{
			Name: "KV_" + name, Description: description, Subjects: []string{"$KV." + name + ".>"},
			MaxMsgsPerSubject: 1, MaxBytes: -1, MaxMsgSize: -1, MaxMsgs: -1, MaxConsumers: -1,
			Storage: jetstream.FileStorage, Replicas: c.Replicas(), Discard: jetstream.DiscardNew,
			AllowRollup: true, DenyDelete: true, Duplicates: 2 * time.Minute,
			AllowAtomicPublish: true,
		})
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			st, err = c.JS.Stream(ctx, "KV_"+name) // another process made it first
		}
	}
	if err != nil {
		return nil, c.explainBucket(name, err)
	}
	if cfg := st.CachedInfo().Config; !cfg.AllowAtomicPublish {
		// A bucket made by another tool: allow atomic batches on it.
		cfg.AllowAtomicPublish = true
		if _, err := c.JS.UpdateStream(ctx, cfg); err != nil {
			return nil, fmt.Errorf("JetStream bucket %s: allowing atomic batches (a NATS server 2.12 or newer is needed): %w", name, err)
		}
	}
	if err := waitStreamLeader(ctx, st); err != nil {
		return nil, c.explainBucket(name, err)
	}
	kv, err := c.JS.KeyValue(ctx, name)
	if err != nil {
		return nil, c.explainBucket(name, err)
	}
	return &Bucket{Name: name, KV: kv, Stream: st, conn: c}, nil
}

// waitStreamLeader waits, within ctx, until the stream has a leader: a replicated stream
// just made (or one whose leader's node just died) answers no writes before it elects
// one, and the first write would fail with "no responders".
func waitStreamLeader(ctx context.Context, st jetstream.Stream) error {
	for {
		info, err := st.Info(ctx)
		if err == nil && (info.Cluster == nil || info.Cluster.Leader != "") {
			return nil
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = errors.New("the stream has no leader yet")
			}
			return fmt.Errorf("%w (%v)", err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Entry is the latest value of a key.
type Entry struct {
	Key   string
	Value []byte
	Rev   uint64
}

// Latest returns the latest value of every key matching filter (a KV key pattern, such
// as "t.*"), deleted keys left out, read from the stream's leader: its subjects first,
// then each one's last message.
func (b *Bucket) Latest(ctx context.Context, filter string) ([]Entry, error) {
	if b.conn == nil {
		return b.latest(ctx, filter)
	}
	var out []Entry
	err := b.conn.Retry(ctx, func(ctx context.Context) (err error) {
		out, err = b.latest(ctx, filter)
		return err
	})
	return out, err
}

func (b *Bucket) latest(ctx context.Context, filter string) ([]Entry, error) {
	prefix := "$KV." + b.Name + "."
	info, err := b.Stream.Info(ctx, jetstream.WithSubjectFilter(prefix+filter))
	if err != nil {
		return nil, fmt.Errorf("JetStream bucket %s: %w", b.Name, err)
	}
	out := make([]Entry, 0, len(info.State.Subjects))
	for subj := range info.State.Subjects {
		m, err := b.Stream.GetLastMsgForSubject(ctx, subj)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // purged meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("JetStream bucket %s: %w", b.Name, err)
		}
		if op := m.Header.Get("KV-Operation"); op == "DEL" || op == "PURGE" {
			continue
		}
		out = append(out, Entry{Key: subj[len(prefix):], Value: m.Data, Rev: m.Sequence})
	}
	return out, nil
}

func (c *Conn) explainBucket(name string, err error) error {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode == 10023 ||
		strings.Contains(err.Error(), "insufficient resources") || strings.Contains(err.Error(), "replicas > 1 not supported") {
		return fmt.Errorf("JetStream at %s cannot keep bucket %s with %d replicas (%v); add ?replicas=1 to the store URL on a single server, or grow the cluster", c.Cfg.Where(), name, c.Replicas(), err)
	}
	if strings.Contains(err.Error(), "Permissions Violation") || strings.Contains(err.Error(), "permission") {
		return fmt.Errorf("the NATS user may not use JetStream bucket %s (%v); its permissions must allow $JS.API.> and $KV.%s.>", name, err, name)
	}
	return fmt.Errorf("JetStream bucket %s at %s: %w", name, c.Cfg.Where(), err)
}

func (c *Conn) timeout() time.Duration { return c.Cfg.timeout() }
