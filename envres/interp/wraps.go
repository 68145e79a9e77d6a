package interp

import (
	"path/filepath"
	"strings"
	"sync"
)

// wrapNote is a wrapper finding that holds only if the worker runs under
// the wrapper (contract §4): a wrapped command that runs and returns
// (sudo apt-get install …, su -c "createdb …" postgres) cannot change the
// environment of a worker started later. A command's state carries the
// notes of the wrappers it runs under; they are reported where a worker
// starts in that state (an exec'd or background command, a script's last
// command) and dropped otherwise.
type wrapNote struct {
	rule string // wrapper.EnvReset, wrapper.LoginShell or wrapper.InteractiveShell
	site Site
	msg  string
	vars []string
	// always: reported at any worker point, even a last command that is
	// known to return (a shebang's login or interactive options count
	// whenever the script launches anything).
	always bool
}

// addWrap records that the command of cst runs under a wrapper; cst must
// be the command's own state (a fork), not the script's.
func (a *analyzer) addWrap(cst *state, r string, s Site, msg string, vars ...string) {
	msg += a.mayNote
	cst.wraps = append(cst.wraps[:len(cst.wraps):len(cst.wraps)], wrapNote{rule: r, site: s, msg: msg, vars: vars})
}

// reportWraps reports the wrappers a worker starts under; for a last
// command that is known to return (returns), only those that always count.
func (a *analyzer) reportWraps(ws []wrapNote, returns bool) {
	for _, w := range ws {
		if returns && !w.always {
			continue
		}
		a.wrapped(w)
	}
}

// wrapped records that a worker starts under the wrapper of w.
func (a *analyzer) wrapped(w wrapNote) {
	if a.once(factKey{3, w.site.Pos, w.rule, w.msg + "\x00" + strings.Join(w.vars, ","), 0}) {
		a.pass.Wrapped = fact(a.pass.Wrapped, Wrapper{Rule: w.rule, At: w.site, Message: w.msg, Variables: w.vars})
	}
}

// reportAlways reports the notes that count at any worker point (a
// shebang's options), for a child whose own end is handed to its caller.
func (a *analyzer) reportAlways(ws []wrapNote) {
	for _, w := range ws {
		if w.always {
			a.wrapped(w)
		}
	}
}

// returning are programs that run and return: as a script's last
// command they are not a worker a wrapper finding is about (sudo apt-get
// install …, sudo -u postgres psql -c …). docs/lint.md lists them.
var returning = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"apt-get": true, "apt": true, "aptitude": true, "dpkg": true, "dpkg-reconfigure": true, "debconf-set-selections": true,
		"yum": true, "dnf": true, "microdnf": true, "rpm": true, "zypper": true, "apk": true, "pacman": true, "emerge": true,
		"snap": true, "brew": true, "port": true, "pkg": true, "nix-env": true, "nix-store": true, "nix-collect-garbage": true,
		"nix-channel": true, "nix-build": true, "nix-prefetch-url": true, "add-apt-repository": true, "apt-key": true, "update-alternatives": true,
		"update-ca-certificates": true, "ldconfig": true, "locale-gen": true, "update-locale": true, "localedef": true,
		"pip": true, "pip3": true, "gem": true, "cpan": true, "cpanm": true,
		"systemctl": true, "service": true, "rc-service": true, "rc-update": true, "update-rc.d": true, "chkconfig": true, "initctl": true,
		"journalctl": true, "loginctl": true, "timedatectl": true, "hostnamectl": true,
		"useradd": true, "usermod": true, "userdel": true, "groupadd": true, "groupmod": true, "adduser": true, "addgroup": true,
		"deluser": true, "delgroup": true, "passwd": true, "chpasswd": true, "gpasswd": true, "visudo": true, "chsh": true,
		"install": true, "chgrp": true, "rsync": true, "scp": true, "dd": true, "truncate": true, "shred": true, "unlink": true, "rmdir": true,
		"tar": true, "unzip": true, "zip": true, "gzip": true, "gunzip": true, "xz": true, "bzip2": true,
		"curl": true, "wget": true, "git": true, "make": true, "cmake": true, "ninja": true,
		"mount": true, "umount": true, "modprobe": true, "insmod": true, "rmmod": true, "sysctl": true, "swapon": true, "swapoff": true,
		"mkswap": true, "mkfs": true, "fdisk": true, "parted": true, "blkid": true, "lsblk": true, "losetup": true,
		"iptables": true, "ip6tables": true, "nft": true, "ufw": true, "firewall-cmd": true, "ip": true, "ifconfig": true, "route": true,
		"setcap": true, "getcap": true, "setfacl": true, "chattr": true, "restorecon": true, "semanage": true, "setenforce": true,
		"crontab": true, "psql": true, "createdb": true, "dropdb": true, "createuser": true, "dropuser": true, "pg_dump": true,
		"pg_restore": true, "pg_dumpall": true, "pg_isready": true, "initdb": true, "mysql": true, "mysqladmin": true, "mysqldump": true,
		"mongo": true, "mongosh": true, "redis-cli": true, "gpg": true, "openssl": true, "ssh-keygen": true, "keytool": true,
		"nvidia-smi": true, "lspci": true, "lsmod": true, "dmesg": true, "df": true, "du": true, "free": true, "lscpu": true,
		"docker": true, "podman": true, "kubectl": true, "helm": true, "npm": true, "yarn": true, "pnpm": true, "conda": true,
		"mamba": true, "micromamba": true, "chroot": true, "ln": true, "touch": true, "rm": true, "cp": true, "mv": true,
		"mkdir": true, "chmod": true, "chown": true, "tee": true, "cat": true, "sed": true, "echo": true, "printf": true,
		"fc-cache": true, "updatedb": true, "newaliases": true, "postmap": true, "a2enmod": true, "a2ensite": true, "a2dismod": true,
		"certbot": true, "sync": true, "kill": true, "pkill": true, "killall": true, "find": true, "xargs": true,
		"test": true, "true": true, "false": true, "ls": true, "id": true, "whoami": true, "env": true, "printenv": true,
	}
})

// returns reports whether fs names a program that runs and returns.
func returns(fs []field) bool {
	return len(fs) > 0 && fs[0].Known && returning()[filepath.Base(fs[0].Str)]
}
