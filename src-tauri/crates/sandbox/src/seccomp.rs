//! The seccomp filter every sandboxed command runs under: no `ptrace` or reading another
//! process's memory, no `io_uring` (it bypasses the filter's view of syscalls), no kernel
//! modules, BPF, keyrings, mounts or new namespaces; without network, no sockets but Unix
//! ones (and, where no network namespace hides the host's sockets, no `connect` at all).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

const ALWAYS_DENIED: &[i64] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
];

/// The filter as a BPF program.
pub fn program(network: bool, deny_connect: bool) -> Result<BpfProgram, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for syscall in ALWAYS_DENIED {
        rules.insert(*syscall, Vec::new());
    }
    if !network {
        let not_unix = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )
        .map_err(|e| e.to_string())?;
        let rule = SeccompRule::new(vec![not_unix]).map_err(|e| e.to_string())?;
        rules.insert(libc::SYS_socket, vec![rule.clone()]);
        rules.insert(libc::SYS_socketpair, vec![rule]);
    }
    if deny_connect {
        rules.insert(libc::SYS_connect, Vec::new());
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    BpfProgram::try_from(filter).map_err(|e| e.to_string())
}

/// Loads the filter into this process (and so into the command it becomes).
pub fn apply(network: bool, deny_connect: bool) -> Result<(), String> {
    let program = program(network, deny_connect)?;
    seccompiler::apply_filter(&program).map_err(|e| e.to_string())
}
