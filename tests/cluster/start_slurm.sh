#!/usr/bin/env bash
# Install (Debian's slurm-wlm and munge) and start a single-node SLURM cluster on localhost, for
# `make test-cluster`. Idempotent: a running cluster is left as it is. Needs root and apt-get.
# No accounting database: jobs are tracked with squeue (the executor's --slurm-status-command).
set -euo pipefail

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurm-wlm munge >/dev/null
fi

if scontrol ping 2>/dev/null | grep -q "UP"; then
    echo "SLURM already running"
    exit 0
fi

host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
conf_dir=/etc/slurm
mkdir -p "$conf_dir" /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
cat > "$conf_dir/slurm.conf" <<CONF
ClusterName=expressivity
SlurmctldHost=${host}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
MinJobAge=600
NodeName=${host} CPUs=${cpus} RealMemory=${mem_mb} State=UNKNOWN
PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP
CONF
rm -f "$conf_dir/cgroup.conf"  # proctrack/linuxproc and task/none: no cgroups needed

if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || su -s /bin/sh munge -c "/usr/sbin/munged --force" || /usr/sbin/munged --force

slurmctld
slurmd
for _ in $(seq 60); do
    if sinfo -h -o "%T" 2>/dev/null | grep -qE "idle|mixed|alloc"; then
        echo "SLURM is up: $(sinfo -h -o '%P %D %T %c CPUs')"
        exit 0
    fi
    sleep 1
done
echo "SLURM did not come up; logs:" >&2
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
