// Package prejoinshot holds only a test: the call's pre-join screen in a
// real window (Fyne's GLFW driver under Xvfb) on a real PipeWire server
// with virtual devices, screenshotted to build/screenshots/prejoin-devices.png
// (`make prejoinshot`). The window runs in a child process of the test
// binary, on its main thread, as GLFW requires.
package prejoinshot
