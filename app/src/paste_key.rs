//! Ctrl+V with a photo on the clipboard, on Windows.
//!
//! egui's window reads the clipboard's text on Ctrl+V and passes nothing on when there
//! is none, so a screenshot on the clipboard never reaches the page. On Windows, a hook
//! on the window's message loop sees the key before winit does, and notes it; the app
//! then asks for the clipboard's image ([`crate::protocol::Request::ClipboardPhoto`])
//! when the key came into the page's text and egui pasted no text. Elsewhere nothing
//! notes the key: *Paste photo* and the palette paste a photo.

use std::sync::atomic::{AtomicBool, Ordering};

/// Ctrl+V was pressed since the app last asked.
static PRESSED: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl+V was pressed since the last call.
pub fn take() -> bool {
    PRESSED.swap(false, Ordering::Relaxed)
}

/// Watches the window's messages for Ctrl+V (the message goes on to winit as before).
#[cfg(windows)]
pub fn watch(options: eframe::NativeOptions) -> eframe::NativeOptions {
    use windows_sys::Win32::UI::Input::KeyboardAndMouse::{GetKeyState, VK_CONTROL, VK_MENU, VK_SHIFT, VK_V};
    use windows_sys::Win32::UI::WindowsAndMessaging::{MSG, WM_KEYDOWN};
    use winit::platform::windows::EventLoopBuilderExtWindows;

    let event_loop_builder: eframe::EventLoopBuilderHook = Box::new(|builder| {
        builder.with_msg_hook(|msg| {
            // SAFETY: winit passes each message it is about to dispatch, a valid MSG.
            let msg = unsafe { &*msg.cast::<MSG>() };
            if msg.message == WM_KEYDOWN && msg.wParam == usize::from(VK_V) {
                // SAFETY: GetKeyState reads this thread's keyboard state.
                let down = |key| unsafe { GetKeyState(i32::from(key)) } < 0;
                if down(VK_CONTROL) && !down(VK_SHIFT) && !down(VK_MENU) {
                    PRESSED.store(true, Ordering::Relaxed);
                }
            }
            false
        });
    });
    eframe::NativeOptions {
        event_loop_builder: Some(event_loop_builder),
        ..options
    }
}
