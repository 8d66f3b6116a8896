//! Every raw-pointer operation of the C boundary. Each helper checks NULL
//! (`Fail::Null`) and relies, for the rest, on the exported function's
//! `# Safety` section: a non-NULL pointer points at live memory of the
//! stated size and type for the duration of the call (or, for handles, was
//! returned by the matching constructor and not yet freed).

use super::codes::Fail;
use crate::Error;
use std::ffi::{c_char, CStr};

/// A reference to the `T` behind `p`.
///
/// # Safety
/// `p` is NULL or points to a live `T` for the call.
pub(crate) unsafe fn read<'a, T>(p: *const T) -> Result<&'a T, Fail> {
    // SAFETY: the caller's contract; NULL is rejected by `as_ref`.
    unsafe { p.as_ref() }.ok_or(Fail::Null)
}

/// A mutable reference to the `T` behind `p`, for writing a result.
///
/// # Safety
/// `p` is NULL or points to a writable `T`, not aliased, for the call.
pub(crate) unsafe fn write<'a, T>(p: *mut T) -> Result<&'a mut T, Fail> {
    // SAFETY: the caller's contract; NULL is rejected by `as_mut`.
    unsafe { p.as_mut() }.ok_or(Fail::Null)
}

/// Writes `value` to `p` unless `p` is NULL (for optional outputs).
///
/// # Safety
/// As [`write`].
pub(crate) unsafe fn write_if_given<T>(p: *mut T, value: T) {
    // SAFETY: the caller's contract.
    if let Ok(out) = unsafe { write(p) } {
        *out = value;
    }
}

/// The `n` elements starting at `p` (an empty slice when `n` is 0, whatever
/// `p` is).
///
/// # Safety
/// `p` is NULL or points to `n` live elements for the call.
pub(crate) unsafe fn array<'a, T>(p: *const T, n: u32) -> Result<&'a [T], Fail> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Fail::Null);
    }
    // SAFETY: non-NULL, and the caller guarantees `n` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(p, n as usize) })
}

/// The `n` bytes starting at `p`.
///
/// # Safety
/// As [`array`].
pub(crate) unsafe fn bytes<'a, T>(p: *const T, n: u32) -> Result<&'a [u8], Fail> {
    // SAFETY: the caller's contract.
    unsafe { array(p.cast::<u8>(), n) }
}

/// A NUL-terminated UTF-8 string (`InvalidArgument` if it is not UTF-8).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string, live for the call.
pub(crate) unsafe fn text<'a>(p: *const c_char) -> Result<&'a str, Fail> {
    if p.is_null() {
        return Err(Fail::Null);
    }
    // SAFETY: non-NULL and NUL-terminated per the caller's contract.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str().map_err(|_| {
        crate::log_error!("string argument is not valid UTF-8");
        Fail::Lib(Error::InvalidArgument(
            "string argument is not valid UTF-8".into(),
        ))
    })
}

/// Copies `text` into a caller's buffer, NUL-terminated and truncated to
/// `size` bytes. Nothing happens for a NULL buffer or a size of 0.
///
/// # Safety
/// `buffer` is NULL or writable for `size` bytes.
pub(crate) unsafe fn write_text(text: &str, buffer: *mut c_char, size: u32) {
    if buffer.is_null() || size == 0 {
        return;
    }
    let n = text.len().min(size as usize - 1);
    // SAFETY: `buffer` has `size` writable bytes and `n + 1 <= size`.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buffer.cast::<u8>(), n);
        *buffer.add(n) = 0;
    }
}

/// Hands a boxed object to C as an opaque handle.
pub(crate) fn into_handle<T>(object: Box<T>) -> *mut T {
    Box::into_raw(object)
}

/// The object behind a handle from [`into_handle`].
///
/// # Safety
/// `p` is NULL or a handle from [`into_handle`] for a `T`, not yet freed.
pub(crate) unsafe fn handle<'a, T>(p: *const T) -> Result<&'a T, Fail> {
    // SAFETY: the caller's contract.
    unsafe { read(p) }
}

/// Takes back the object behind a handle (to free it or reuse it).
///
/// # Safety
/// `p` is NULL or a handle from [`into_handle`] for a `T`, not yet taken;
/// the caller never uses it again.
pub(crate) unsafe fn take_handle<T>(p: *mut T) -> Result<Box<T>, Fail> {
    if p.is_null() {
        return Err(Fail::Null);
    }
    // SAFETY: from Box::into_raw in `into_handle`, taken once (the contract).
    Ok(unsafe { Box::from_raw(p) })
}
