package tui

import "strings"

// mdStream cuts a streamed answer into finished Markdown blocks and the block still
// being written. A block is finished at a blank line outside a fenced code block: from
// then on it never changes, so it is rendered once and printed above the live area, and
// only the last block is redrawn as tokens arrive. Each push scans only the new text, so
// the work per token does not grow with the answer.
type mdStream struct {
	pending string // text not yet handed out
	scanned int    // bytes of pending already scanned for line ends
	inFence bool
	fence   string // the opening fence's marker (``` or ~~~)
	opener  string // the opening fence's line (with its language)
	cut     int    // end of the last finished block in pending
}

// push appends text and returns the blocks it finished ("" if none).
func (s *mdStream) push(text string) string {
	s.pending += text
	for s.scanned < len(s.pending) {
		i := strings.IndexByte(s.pending[s.scanned:], '\n')
		if i < 0 {
			break
		}
		line := s.pending[s.scanned : s.scanned+i]
		s.scanned += i + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case s.inFence:
			if strings.HasPrefix(trimmed, s.fence) && strings.Trim(trimmed, s.fence[:1]) == "" {
				s.inFence = false
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			s.inFence, s.fence, s.opener = true, trimmed[:3], trimmed
		case trimmed == "" && strings.TrimSpace(s.pending[s.cut:s.scanned]) != "":
			s.cut = s.scanned
		}
	}
	if s.cut == 0 && s.scanned > maxTail {
		return s.cutLong()
	}
	if s.cut == 0 {
		return ""
	}
	done := s.pending[:s.cut]
	s.pending = s.pending[s.cut:]
	s.scanned -= s.cut
	s.cut = 0
	return done
}

// tail is the block being written.
func (s *mdStream) tail() string { return s.pending }

// flush ends the answer: everything not yet handed out.
func (s *mdStream) flush() string {
	rest := s.pending
	*s = mdStream{}
	return rest
}

// maxTail bounds the block redrawn per token: a paragraph or code block longer than this
// is handed out at its last line end (a code block closed there and opened again after),
// so even an answer without a blank line costs the same per token from start to end.
const maxTail = 4096

func (s *mdStream) cutLong() string {
	i := strings.LastIndexByte(s.pending[:s.scanned], '\n')
	if i < 0 {
		return ""
	}
	done, rest := s.pending[:i+1], s.pending[i+1:]
	scannedRest := s.scanned - (i + 1)
	if s.inFence {
		done += s.fence + "\n"
		rest = s.opener + "\n" + rest
		scannedRest += len(s.opener) + 1
	}
	s.pending, s.scanned = rest, scannedRest
	return done
}
