#!/usr/bin/env bash
# Starts and stops a LAVA instance on this machine for TestLAVAServer
# (make lava-test): Debian's lava-server (gunicorn, lava-scheduler) on
# PostgreSQL, a lava-worker with lava-dispatcher, and one qemu device.
#
#   lava-server.sh up DIR PORT   start everything; DIR/token is an API token
#   lava-server.sh down DIR      stop what "up" started (by the pids it kept)
#
# It runs as root (LAVA's dispatcher does) and needs the Debian packages
# lava-server, lava-dispatcher and postgresql (make lava-deps).
set -euo pipefail
cmd=${1:?up or down}
dir=${2:?state directory}
# LAVA's tools are Debian's python3 programs; a python3 earlier in PATH
# (pyenv) lacks their modules.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
worker=fwcheck-worker
device=qemu-fwcheck
mkdir -p "$dir"
chmod 755 "$dir"

start() { # name command...: start a daemon in its own session, keep its pid
	local name=$1
	shift
	setsid "$@" >"$dir/$name.out" 2>&1 </dev/null &
	echo $! >"$dir/$name.pid"
}

case $cmd in
up)
	port=${3:?port}
	if ! pg_isready -q; then
		cluster=$(pg_lsclusters -h | awk 'NR==1 {print $1" "$2}')
		[ -n "$cluster" ] || { echo "no PostgreSQL cluster (install postgresql)" >&2; exit 1; }
		pg_ctlcluster $cluster start
		echo "$cluster" >"$dir/postgres.started"
		# A loaded host or a slow disk can take minutes to start it.
		for _ in $(seq 180); do pg_isready -q && break; sleep 1; done
		pg_isready -q || { echo "PostgreSQL did not start within 3 minutes" >&2; exit 1; }
	fi
	# The package's own set-up: configuration, database and migrations.
	# apt-get runs it at install time, but skips the database when
	# PostgreSQL is not running then (a container without init).
	# The package's own set-up, idempotent: configuration, database and
	# migrations. apt-get runs it at install time but leaves the database
	# out when PostgreSQL is not running then (a container without init).
	python3 /usr/share/lava-server/postinst.py >"$dir/postinst.log" 2>&1 || { cat "$dir/postinst.log" >&2; exit 1; }
	manage() { lava-server manage "$@"; }
	manage users add --superuser --staff --passwd fwcheck fwcheck-admin >/dev/null 2>&1 || true
	manage tokens add --user fwcheck-admin | awk 'NF {t=$NF} END {print t}' >"$dir/token"
	manage workers add "$worker" >/dev/null 2>&1 || true
	manage shell -c "from lava_scheduler_app.models import Worker; print(Worker.objects.get(hostname='$worker').token)" >"$dir/worker-token"
	manage device-types add qemu >/dev/null 2>&1 || true
	manage devices add --device-type qemu --worker "$worker" "$device" >/dev/null 2>&1 || true
	# The device's dictionary: TCG (this machine's KVM is not to be
	# trusted), and memory enough for the image.
	cat >/etc/lava-server/dispatcher-config/devices/$device.jinja2 <<'DICT'
{% extends 'qemu.jinja2' %}
{% set no_kvm = True %}
{% set memory = 1024 %}
DICT
	chown lavaserver: /etc/lava-server/dispatcher-config/devices/$device.jinja2
	manage devices update --health GOOD "$device" >/dev/null
	# The daemons drop to lavaserver before they reopen their logs.
	touch "$dir/gunicorn.log" "$dir/scheduler.log"
	chown lavaserver: "$dir/gunicorn.log" "$dir/scheduler.log"
	start gunicorn gunicorn3 lava_server.wsgi --log-level INFO --log-file "$dir/gunicorn.log" -u lavaserver -g lavaserver \
		--workers 2 --bind "127.0.0.1:$port" --timeout 300
	start scheduler lava-server manage lava-scheduler --level INFO --log-file "$dir/scheduler.log"
	answers() { python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=10)" \
		"http://127.0.0.1:$port/api/v0.2/system/version/" 2>/dev/null; }
	for _ in $(seq 300); do
		answers && break
		sleep 1
	done
	answers || { echo "lava-server did not answer on port $port" >&2; tail -n 20 "$dir/gunicorn.out" >&2; exit 1; }
	sleep 3
	for name in gunicorn scheduler; do
		kill -0 "$(cat "$dir/$name.pid")" 2>/dev/null || { echo "$name died:" >&2; tail -n 20 "$dir/$name.out" >&2; exit 1; }
	done
	start worker lava-worker --level DEBUG --url "http://127.0.0.1:$port/" --token "$(cat "$dir/worker-token")" \
		--name "$worker" --worker-dir "$dir/worker" --log-file "$dir/worker.log"
	;;
down)
	for name in worker scheduler gunicorn; do
		if [ -s "$dir/$name.pid" ]; then
			pid=$(cat "$dir/$name.pid")
			kill -- "-$pid" 2>/dev/null || true
			for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
			kill -9 -- "-$pid" 2>/dev/null || true
			rm -f "$dir/$name.pid"
		fi
	done
	if [ -s "$dir/postgres.started" ]; then
		pg_ctlcluster $(cat "$dir/postgres.started") stop || true
		rm -f "$dir/postgres.started"
	fi
	;;
*)
	echo "want up or down" >&2
	exit 2
	;;
esac
