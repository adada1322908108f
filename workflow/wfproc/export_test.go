package wfproc

// ForgetMaybeServe undoes MaybeServe's record, for a test that runs more than once.
func ForgetMaybeServe() { serves.Store(false) }
