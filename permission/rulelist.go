package permission

// Rules lists the policy's rules as they stand: deny, ask and allow (the session's and
// this turn's grants included), each with the file or flag it came from.
func (p *Policy) Rules() (deny, ask, allow []Rule) {
	for p.base != nil {
		p = p.base
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	deny = append([]Rule(nil), p.deny...)
	ask = append([]Rule(nil), p.ask...)
	allow = append(append([]Rule(nil), p.allow...), p.ses...)
	return deny, ask, allow
}
