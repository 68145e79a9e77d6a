package progs

import (
	"path/filepath"
	"sync"
)

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

// Returns reports whether args names a program that runs and returns.
func Returns(args []Arg) bool {
	return len(args) > 0 && args[0].Known && returning()[filepath.Base(args[0].S)]
}
