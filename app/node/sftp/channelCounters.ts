/**
 * Live counters of one channel, written by pipelines and read by the progress sampler.
 * Index 0: bytes transferred, 1: bytes in flight, 2: outstanding requests. Backed by a SharedArrayBuffer
 * so the coordinating thread can sample without a message per packet.
 */
export type ChannelCounters = Float64Array;
export const COUNTER_BYTES = 0;
export const COUNTER_IN_FLIGHT = 1;
export const COUNTER_OUTSTANDING = 2;
export const COUNTERS_PER_CHANNEL = 3;
