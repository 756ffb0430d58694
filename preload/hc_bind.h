/* The mapping a run was launched with (HIERCOLL_MAPPING), as seen from inside the preload. */
#ifndef HC_BIND_H
#define HC_BIND_H

/* This rank's virtual node from the mapping's host "name#k", or -1 (no mapping, no virtual
 * node in it). With virtual nodes, the second run's node of a rank is the one the mapping
 * chose, not rank / HIERCOLL_VIRTUAL_NODE_SIZE: whoever groups ranks into virtual nodes
 * should ask this first. Valid after hc_bind_check. */
int hc_mapping_vnode(void);

#endif
