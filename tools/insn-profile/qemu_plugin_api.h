/*
 * The part of QEMU's TCG plugin API (QEMU 9.0 and later: plugin API
 * versions 2 and up, per-vCPU scoreboards) that insn_profile.c uses,
 * declared here because Debian ships the plugin-capable
 * qemu-system-x86_64 without its qemu-plugin.h. The functions are
 * exported by the QEMU binary; a plugin is a shared object that defines
 * qemu_plugin_version and qemu_plugin_install(). QEMU 7.2's version 1
 * API (an inline add to a plain pointer) is gone from QEMU 10.
 */
#ifndef INSN_PROFILE_QEMU_PLUGIN_API_H
#define INSN_PROFILE_QEMU_PLUGIN_API_H

#include <stddef.h>
#include <stdint.h>

/* The API level this plugin is written against: QEMU refuses a plugin
 * outside its [min, cur] range (QEMU 10.0: 2..4). */
#define INSN_PROFILE_PLUGIN_VERSION 2

typedef uint64_t qemu_plugin_id_t;
struct qemu_info_t; /* not read: we need nothing from it */
struct qemu_plugin_tb;
/* Per-vCPU storage QEMU owns: one element of element_size per vCPU. */
struct qemu_plugin_scoreboard;

/* A 64-bit counter at offset in every vCPU's element of score. */
typedef struct {
	struct qemu_plugin_scoreboard *score;
	size_t offset;
} qemu_plugin_u64;

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
	QEMU_PLUGIN_INLINE_STORE_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
	struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
	qemu_plugin_u64 entry, uint64_t imm);
struct qemu_plugin_scoreboard *qemu_plugin_scoreboard_new(size_t element_size);
uint64_t qemu_plugin_u64_sum(qemu_plugin_u64 entry);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);

#endif
