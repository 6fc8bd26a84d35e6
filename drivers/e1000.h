/*
 * Intel 8254x (e1000) driver: probes every supported function on the PCI
 * bus and registers each as a netdev. See e1000.c.
 */
#ifndef DRIVERS_E1000_H
#define DRIVERS_E1000_H

/**
 * e1000_probe - bind every 8254x PCI function found.
 * @node: NUMA node of the CPU that will poll the devices.
 * Context: boot, after pci_init() and mm_init().
 * Return: number of devices registered.
 */
int e1000_probe(int node);

#endif /* DRIVERS_E1000_H */
