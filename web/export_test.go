package web

// HeapAndStacks is inUse (the heap and the goroutine stacks in use, after a collection), for
// the tests outside the package.
var HeapAndStacks = inUse
