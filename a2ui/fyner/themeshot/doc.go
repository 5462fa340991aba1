// Package themeshot holds only a test: an A2UI surface with a theme (v0.8
// beginRendering styles with a primaryColor and a font) beside the
// same surface without one, drawn by a2ui/fyner in a real window (Fyne's
// GLFW driver under Xvfb) and screenshotted to
// build/screenshots/a2ui-theme.png (`make uishots`). The window runs in a
// child process of the test binary, on its main thread, as GLFW requires.
package themeshot
