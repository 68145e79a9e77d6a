package launcher

import "runtime"

func runtime_LockOSThread()   { runtime.LockOSThread() }
func runtime_UnlockOSThread() { runtime.UnlockOSThread() }
