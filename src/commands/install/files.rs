//! Writing a settings file the way its owner set it up: a symlinked file (a dotfiles
//! repository) is written through to its target, atomically in the target's directory, and the
//! link is kept; the file's mode is kept too.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The file `path` really is: the end of its chain of symlinks (which may not exist yet),
/// else `path` itself.
pub fn real_target(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// Write `text` over `path` through a temp file beside the real file and a rename, so a
/// reader sees the old file or the new one; a symlink at `path` stays a symlink.
pub fn replace_file(path: &Path, text: &str) -> io::Result<()> {
    replace_file_like(path, text, None)
}

/// `replace_file`, with the permission bits of `like` (a backup keeps those of the file it
/// copies: a private settings file must not leave a world-readable copy), else of the file
/// being replaced, else the process's default for a new file.
pub fn replace_file_like(path: &Path, text: &str, like: Option<&Path>) -> io::Result<()> {
    let target = real_target(path)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.seed-tmp",
        target
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    ));
    let mode = std::fs::metadata(like.unwrap_or(&target))
        .ok()
        .map(|m| m.permissions());
    let result = (|| {
        let _ = std::fs::remove_file(&tmp);
        let mut o = std::fs::OpenOptions::new();
        o.write(true).create_new(true);
        // Private until the wanted bits are set, so the text is never more readable than
        // the original for a moment.
        #[cfg(unix)]
        if mode.is_some() {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600);
        }
        let mut f = o.open(&tmp)?;
        f.write_all(text.as_bytes())?;
        drop(f);
        if let Some(p) = mode {
            std::fs::set_permissions(&tmp, p)?;
        }
        std::fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A settings file that is a symlink into a dotfiles folder stays a symlink; the change
    /// lands in the target, and nothing is left beside the link.
    #[test]
    fn a_symlinked_file_is_written_through() {
        let t = tempfile::tempdir().unwrap();
        let dotfiles = t.path().join("dotfiles");
        let claude = t.path().join("claude");
        std::fs::create_dir_all(&dotfiles).unwrap();
        std::fs::create_dir_all(&claude).unwrap();
        let target = dotfiles.join("settings.json");
        std::fs::write(&target, "{}").unwrap();
        let link = claude.join("settings.json");
        std::os::unix::fs::symlink("../dotfiles/settings.json", &link).unwrap();
        replace_file(&link, "{\"a\":1}").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{\"a\":1}");
        assert_eq!(std::fs::read_dir(&claude).unwrap().count(), 1);
        assert_eq!(std::fs::read_dir(&dotfiles).unwrap().count(), 1);
        // A chain of links, and a dangling one (its target is created).
        let second = t.path().join("second");
        std::os::unix::fs::symlink(&link, &second).unwrap();
        assert_eq!(
            real_target(&second).unwrap(),
            claude.join("../dotfiles/settings.json")
        );
        let dangling = t.path().join("dangling");
        std::os::unix::fs::symlink(dotfiles.join("new.json"), &dangling).unwrap();
        replace_file(&dangling, "{}").unwrap();
        assert_eq!(
            std::fs::read_to_string(dotfiles.join("new.json")).unwrap(),
            "{}"
        );
    }
}
