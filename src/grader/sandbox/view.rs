//! The filesystem view: a root of its own, as bubblewrap assembles one.
//!
//! In a new mount namespace, a small tmpfs becomes the root. Each path the
//! program needs is bound into it at its own place, read-only but for the
//! scratch folders; the old root is then detached. What is not listed does
//! not exist for the program, whatever its modes: other students' folders,
//! the assignment and its hidden tests, the grader's home and output, the
//! machine's `/tmp`. What is listed cannot be changed, modes, times and
//! extended attributes included (landlock does not cover those), so a
//! student running under the instructor's own uid still cannot touch the
//! instructor's files.
//!
//! Toolchains inside a private home (`/root/.cargo` under a 0700 `/root`)
//! become reachable to a dedicated user, because the folders leading to them
//! are the view's own, open ones: builds can run as that user too.
//!
//! Runs in the trampoline only, before the user switch.

use std::io;
use std::os::unix::fs::symlink;
use std::path::{Component, Path, PathBuf};

use rustix::mount::{MountFlags, MountPropagationFlags, UnmountFlags};

use super::kernel::SysError;
use super::policy::View;

/// Enters a mount namespace whose root holds only the view's paths, and
/// returns to the working folder, which must be one of them. `owner` (a uid
/// and gid) owns the fresh home.
pub(super) fn enter(view: &View, owner: u32) -> Result<(), SysError> {
    let cwd = std::env::current_dir().map_err(|error| SysError::failed("cannot read the working folder", error))?;
    let root = &view.root;
    private_root_at(root)?;
    let mut bound = Vec::new();
    let mut read = view.read.clone();
    read.sort();
    for path in &read {
        place(root, path, false, &mut bound, 0)?;
    }
    for path in &view.read_write {
        place(root, path, true, &mut bound, 0)?;
    }
    if let Some((home, size_mb)) = &view.fresh_home {
        mount_home(root, home, *size_mb, owner)?;
    }
    device_links(root).map_err(|error| SysError::failed("linking /dev/fd", error))?;
    pivot_into(root)?;
    set_read_only(Path::new("/"), false)
        .map_err(|error| SysError::failed("making the view's root read-only", error))?;
    std::env::set_current_dir(&cwd)
        .map_err(|error| SysError::failed(format!("the working folder {} is not in the view", cwd.display()), error))
}

/// A new mount namespace, whose changes never reach the machine's, with an
/// empty tmpfs at `root`.
fn private_root_at(root: &Path) -> Result<(), SysError> {
    super::kernel::unshare(super::kernel::Namespace::Mount)?;
    rustix::mount::mount_change("/", MountPropagationFlags::REC | MountPropagationFlags::PRIVATE)
        .map_err(|error| SysError::failed("making the mounts private", error))?;
    rustix::mount::mount("tmpfs", root, "tmpfs", MountFlags::NOSUID | MountFlags::NODEV, c"mode=0755,size=1m")
        .map_err(|error| SysError::failed(format!("mounting a tmpfs on {}", root.display()), error))
}

/// The probe's trial: a view holding `/usr` at `root`, taken apart at once
/// (all but the final `pivot_root`), so that `root` can be removed after.
pub(super) fn trial(root: &Path) -> Result<(), SysError> {
    private_root_at(root)?;
    let placed = place(root, Path::new("/usr"), false, &mut Vec::new(), 0);
    rustix::mount::unmount(root, UnmountFlags::DETACH)
        .map_err(|error| SysError::failed("unmounting the trial", error))?;
    placed
}

/// After the PID namespace's first process starts: a `/proc` of that
/// namespace, in which the grader and every other process on the machine do
/// not exist. Needs privilege over the namespace (a root grader).
pub(super) fn mount_own_proc() -> Result<(), SysError> {
    let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
    rustix::mount::mount("proc", "/proc", "proc", flags, None)
        .map_err(|error| SysError::failed("mounting /proc", error))
}

/// A tmpfs of `size_mb` MiB at `home`, over whatever was placed there.
fn mount_home(root: &Path, home: &Path, size_mb: u64, owner: u32) -> Result<(), SysError> {
    let target =
        inside(root, home).ok_or_else(|| SysError::refused(format!("the home {} cannot be placed", home.display())))?;
    std::fs::create_dir_all(&target)
        .map_err(|error| SysError::failed(format!("making the home {}", home.display()), error))?;
    let options = std::ffi::CString::new(format!("mode=0700,size={size_mb}m,uid={owner},gid={owner}"))
        .expect("no NUL in numbers");
    let flags = MountFlags::NOSUID | MountFlags::NODEV;
    rustix::mount::mount("tmpfs", &target, "tmpfs", flags, options.as_c_str())
        .map_err(|error| SysError::failed(format!("mounting a home of {size_mb} MiB at {}", home.display()), error))
}

/// Binds `path` into the view at the same place; a symbolic link is
/// recreated as a link, and its target placed too.
fn place(root: &Path, path: &Path, writable: bool, bound: &mut Vec<PathBuf>, depth: u32) -> Result<(), SysError> {
    if depth > 8 || bound.iter().any(|done| path.starts_with(done)) {
        return Ok(());
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else { return Ok(()) };
    let Some(target) = inside(root, path) else { return Ok(()) };
    let failed =
        |what: &str, error: io::Error| SysError::failed(format!("{what} {} in the view", path.display()), error);
    if meta.is_symlink() {
        let link = std::fs::read_link(path).map_err(|error| failed("reading the link", error))?;
        create_parent(&target).map_err(|error| failed("making the folders of", error))?;
        match symlink(&link, &target) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(failed("linking", error)),
        }
        return match std::fs::canonicalize(path) {
            Ok(real) => place(root, &real, writable, bound, depth + 1),
            Err(_) => Ok(()),
        };
    }
    if meta.is_dir() {
        std::fs::create_dir_all(&target).map_err(|error| failed("making", error))?;
    } else {
        create_parent(&target).map_err(|error| failed("making the folders of", error))?;
        std::fs::File::create(&target).map_err(|error| failed("making the mount point of", error))?;
    }
    rustix::mount::mount_bind_recursive(path, &target)
        .map_err(|error| SysError::failed(format!("binding {}", path.display()), error))?;
    if !writable {
        set_read_only(&target, true)
            .map_err(|error| SysError::failed(format!("making {} read-only", path.display()), error))?;
    }
    bound.push(path.to_path_buf());
    Ok(())
}

/// Where `path` goes in the view, if every folder on the way there is a real
/// folder of the view: a link the view already holds is never followed while
/// the view is built, since it would lead out of it, into the machine's files.
fn inside(root: &Path, path: &Path) -> Option<PathBuf> {
    let mut target = root.to_path_buf();
    for component in path.components() {
        match component {
            Component::RootDir => {}
            Component::Normal(name) => {
                if std::fs::symlink_metadata(&target).is_ok_and(|meta| meta.is_symlink()) {
                    return None;
                }
                target.push(name);
            }
            _ => return None,
        }
    }
    (target != root).then_some(target)
}

fn create_parent(target: &Path) -> io::Result<()> {
    match target.parent() {
        Some(parent) => std::fs::create_dir_all(parent),
        None => Ok(()),
    }
}

/// The links programs expect in `/dev` (shells' `<(...)`, `/dev/stdin`).
fn device_links(root: &Path) -> io::Result<()> {
    let dev = root.join("dev");
    std::fs::create_dir_all(&dev)?;
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        if std::fs::symlink_metadata(dev.join(name)).is_err() {
            symlink(target, dev.join(name))?;
        }
    }
    Ok(())
}

/// Makes `root` the root of this mount namespace and detaches the old one.
fn pivot_into(root: &Path) -> Result<(), SysError> {
    std::env::set_current_dir(root).map_err(|error| SysError::failed(format!("entering {}", root.display()), error))?;
    // pivot_root(".", ".") stacks the old root on the new one; unmounting
    // "." then removes the old root alone.
    rustix::process::pivot_root(".", ".").map_err(|error| SysError::failed("pivot_root", error))?;
    rustix::mount::unmount(".", UnmountFlags::DETACH)
        .map_err(|error| SysError::failed("detaching the old root", error))?;
    std::env::set_current_dir("/").map_err(|error| SysError::failed("entering the view", error))
}

/// `mount_setattr(2)`'s argument.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;

/// Makes the mount at `target` (and, if `recursive`, every mount below it)
/// read-only, keeping its other flags: a mount inherited from a more
/// privileged namespace may not lose `nosuid` or `nodev`, which a plain
/// remount would try.
fn set_read_only(target: &Path, recursive: bool) -> io::Result<()> {
    let path = std::ffi::CString::new(target.as_os_str().as_encoded_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))?;
    let attr = MountAttr { attr_set: MOUNT_ATTR_RDONLY, attr_clr: 0, propagation: 0, userns_fd: 0 };
    let flags = if recursive { libc::AT_RECURSIVE } else { 0 };
    // SAFETY: `path` is a NUL-terminated string and `attr` a live
    // `struct mount_attr` of the size passed; the kernel reads both and
    // keeps neither.
    let result = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            flags as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if result == 0 {
        return Ok(());
    }
    let error = io::Error::last_os_error();
    if error.raw_os_error() != Some(libc::ENOSYS) {
        return Err(error);
    }
    // Before Linux 5.12: the top mount only, with the flags it has.
    let kept = rustix::fs::statvfs(target)?.f_flag;
    let mut flags = MountFlags::BIND | MountFlags::RDONLY;
    for (has, flag) in [
        (rustix::fs::StatVfsMountFlags::NOSUID, MountFlags::NOSUID),
        (rustix::fs::StatVfsMountFlags::NODEV, MountFlags::NODEV),
        (rustix::fs::StatVfsMountFlags::NOEXEC, MountFlags::NOEXEC),
    ] {
        if kept.contains(has) {
            flags |= flag;
        }
    }
    rustix::mount::mount_remount(target, flags, c"").map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_goes_to_the_same_place_inside_the_view() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(inside(root.path(), Path::new("/usr/lib")), Some(root.path().join("usr/lib")));
        assert_eq!(inside(root.path(), Path::new("/")), None);
        assert_eq!(inside(root.path(), Path::new("/usr/../etc")), None);
    }

    #[test]
    fn a_link_already_in_the_view_is_never_followed() {
        let root = tempfile::tempdir().unwrap();
        symlink("/etc", root.path().join("bin")).unwrap();
        assert_eq!(inside(root.path(), Path::new("/bin/sh")), None);
        assert!(inside(root.path(), Path::new("/bin")).is_some(), "the link itself may be replaced");
    }
}
