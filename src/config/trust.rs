//! Which configuration files seed obeys. A `.seed.toml` is found by walking up from the
//! project, so a file above it (in a shared directory, a checkout another user made) could
//! otherwise turn enforcement off or fail every hook closed. In the spirit of the state
//! directory's rules, a file is read only when it is yours or root's, and no one else can
//! write it: not others, and not the group, unless the group is the owner's own (a group with
//! no member but the owner, as distributions that give each user a group and a umask of 002
//! make every file).

use std::fs::Metadata;
use std::io;

/// `Ok` for a file seed may obey; else why not, in one line (the caller names the file).
pub fn check(m: &Metadata) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let refuse = |why: String| {
            Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{why}; refusing to obey it"),
            ))
        };
        let me = crate::store::safe_fs::my_uid();
        if m.uid() != 0 && Some(m.uid()) != me {
            return refuse(format!(
                "owned by another user (uid {}), not by you or root",
                m.uid()
            ));
        }
        let mode = m.mode() & 0o777;
        if mode & 0o002 != 0 {
            return refuse(format!("writable by every user (mode {mode:04o})"));
        }
        if mode & 0o020 != 0 && !private_group(m.gid(), m.uid()) {
            return refuse(format!(
                "writable by its group (gid {}, mode {mode:04o}), which has other members",
                m.gid()
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = m;
    Ok(())
}

/// Whether group `gid` has no member but user `uid` (as its primary group, or listed in it),
/// and at least that one, by `/etc/passwd` and `/etc/group`. A group these files do not
/// describe counts as shared.
#[cfg(unix)]
fn private_group(gid: u32, uid: u32) -> bool {
    let read = |p: &str| crate::store::paths::read_bounded(std::path::Path::new(p), 16 << 20).ok();
    let (Some(passwd), Some(group)) = (read("/etc/passwd"), read("/etc/group")) else {
        return false;
    };
    let (passwd, group) = (
        String::from_utf8_lossy(&passwd),
        String::from_utf8_lossy(&group),
    );
    private_group_in(&passwd, &group, gid, uid)
}

/// [`private_group`] over the two files' text.
#[cfg(unix)]
pub(crate) fn private_group_in(passwd: &str, group: &str, gid: u32, uid: u32) -> bool {
    let fields = |line: &str| line.split(':').map(str::to_string).collect::<Vec<_>>();
    let Some(listed) = group
        .lines()
        .map(fields)
        .find(|f| f.len() >= 4 && f[2].parse() == Ok(gid))
    else {
        return false;
    };
    let mut owner_name = None;
    let mut primary = 0;
    for f in passwd.lines().map(fields).filter(|f| f.len() >= 4) {
        let (Ok(u), Ok(g)) = (f[2].parse::<u32>(), f[3].parse::<u32>()) else {
            continue;
        };
        if u == uid {
            owner_name = Some(f[0].clone());
        }
        if g == gid {
            if u != uid {
                return false;
            }
            primary += 1;
        }
    }
    let members: Vec<&str> = listed[3]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let listed_ok = members.iter().all(|m| Some(*m) == owner_name.as_deref());
    listed_ok && primary + members.len() > 0
}

#[cfg(all(test, unix))]
mod tests {
    use super::private_group_in;

    const PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\n\
        dev:x:1000:1000:Dev:/home/dev:/bin/bash\n\
        ann:x:1001:100:Ann:/home/ann:/bin/bash\n\
        bob:x:1002:100:Bob:/home/bob:/bin/bash\n";
    const GROUP: &str = "root:x:0:\n\
        dev:x:1000:\n\
        users:x:100:\n\
        docker:x:999:dev\n\
        team:x:998:dev,ann\n\
        empty:x:997:\n";

    /// A user's own group (uid 1000, group 1000 with no one else) is private; a group anyone
    /// else is in, by their primary group or by the list, is not; nor is one with no member
    /// at all, or one the files do not know.
    #[test]
    fn a_group_is_private_only_to_its_one_member() {
        assert!(private_group_in(PASSWD, GROUP, 1000, 1000));
        assert!(
            private_group_in(PASSWD, GROUP, 999, 1000),
            "dev alone in docker"
        );
        assert!(
            !private_group_in(PASSWD, GROUP, 998, 1000),
            "ann is in team"
        );
        assert!(
            !private_group_in(PASSWD, GROUP, 100, 1001),
            "bob shares users"
        );
        assert!(
            !private_group_in(PASSWD, GROUP, 997, 1000),
            "no member at all"
        );
        assert!(
            !private_group_in(PASSWD, GROUP, 4242, 1000),
            "unknown group"
        );
        assert!(
            !private_group_in(PASSWD, GROUP, 1000, 1001),
            "someone else's"
        );
        assert!(!private_group_in("", "garbage\n::x:\n", 1000, 1000));
    }
}
