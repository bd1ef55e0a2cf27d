/*
 * Preloaded into the service by bench/soak.ts (`node --require bench/soak-probe.js dist/main.js`):
 * measures the service's own event-loop delay and sends it, with its JS heap, its external memory
 * (Buffers and other memory V8 is told about) and the size of sharp's operation cache, to the
 * benchmark over the IPC channel every SOAK_SAMPLE_MS. Nothing of it is part of the service.
 */
const { monitorEventLoopDelay } = require('node:perf_hooks');

if (typeof process.send === 'function') {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const every = Number(process.env.SOAK_SAMPLE_MS || 10000);
  const timer = setInterval(() => {
    const ms = (ns) => Math.round((ns / 1e6) * 10) / 10;
    const mem = process.memoryUsage();
    // the service's own sharp (same resolved module), loaded by then
    const sharp = require('sharp');
    process.send({
      eldP50: ms(histogram.percentile(50)),
      eldP99: ms(histogram.percentile(99)),
      eldMax: ms(histogram.max),
      heapMb: Math.round(mem.heapUsed / 1048576),
      heapTotalMb: Math.round(mem.heapTotal / 1048576),
      externalMb: Math.round(mem.external / 1048576),
      sharpCacheMb: Math.round(sharp.cache().memory.current),
    });
    histogram.reset();
  }, every);
  timer.unref();
  process.channel.unref();
}
