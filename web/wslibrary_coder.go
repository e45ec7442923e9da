//go:build ws_coder

package web

var wsLibraryInUse wsLibrary = coderLibrary{}
