/**
 * Module, boot and OTA commands (docs/protocol/module-console.md §6): `boot [status]`, `ota [status [nocheck]]`
 * and `module reset`, which answers and hands the reboot to the module (services.reboot()) after
 * the firmware's delay, so that the answer can leave before the links drop.
 */
import { formatUtc } from '../../core/time.js';
import type { Output } from './command.js';
import type { ConsoleEnv } from './env.js';

/** ESP reset reason texts by code (esp_reset_reason_t). */
const RESET_REASONS = [
  'Unknown/unset',
  'Power-on event',
  'External pin',
  'esp_restart',
  'Exception/panic',
  'Interrupt watchdog',
  'Task watchdog',
  'Other watchdogs',
  'Exiting deep sleep',
  'Brownout',
  'SDIO',
];

/** The ESP reset code and the two CPUs' ROM reset codes that go with a boot reason. */
function resetCodes(reason: string): { code: number; cpu0: number; cpu1: number } {
  switch (reason) {
    case 'PowerOn':
      return { code: 1, cpu0: 1, cpu1: 14 };
    case 'Wakeup':
      return { code: 8, cpu0: 5, cpu1: 14 };
    case 'Crash':
    case 'EarlyCrash':
      return { code: 4, cpu0: 12, cpu1: 12 };
    case 'SoftReset':
    case 'FirmwareUpdate':
    case 'PartitionUpdate':
      return { code: 3, cpu0: 12, cpu1: 12 };
    default:
      return { code: 0, cpu0: 0, cpu1: 0 };
  }
}

function bootStatus(env: ConsoleEnv, out: Output): void {
  const boot = env.services.bootInfo();
  const ago = Math.max(0, Math.floor(env.now() - boot.bootTime));
  const r = resetCodes(boot.reason);
  const crashes = boot.reason === 'Crash' ? [1, 0] : boot.reason === 'EarlyCrash' ? [1, 1] : [0, 0];
  out.puts(`Last boot was ${ago} second(s) ago`);
  out.puts(`Time at boot: ${formatUtc(boot.bootTime)} UTC`);
  out.puts(`  This is reset #${boot.resetCount} since last power cycle`);
  out.puts(`  Detected boot reason: ${boot.reason} (${r.cpu0}/${r.cpu1})`);
  out.puts(`  Reset reason: ${RESET_REASONS[r.code]} (${r.code})`);
  out.puts(`  Crash counters: ${crashes[0]} total, ${crashes[1]} early`);
  out.puts('  Auto init level: Full');
}

function otaStatus(env: ConsoleEnv, out: Output): void {
  const firmware = env.services.firmware;
  const hardware = env.services.vehicle.metrics.str('m.hardware') || 'OVMS WIFI BLE BT cores=2 rev=ESP32/3';
  const partition = /\/(ota_[01]|factory)\//.exec(firmware)?.[1] ?? 'ota_0';
  const image = firmware.split(' (')[0] ?? firmware;
  const line = (label: string, value: string): void => out.puts(`${label.padEnd(19)}${value}`);
  if (firmware === '') return out.puts('OTA status unknown');
  line('Hardware:', hardware);
  line('Firmware:', firmware);
  line('Running partition:', partition);
  line('Boot partition:', partition);
  // (the firmware's label really has a letter O)
  if (partition !== 'factory') line(partition === 'ota_0' ? 'OTA_O image:' : 'OTA_1 image:', image);
  // No update server is reachable from the emulator, so no `Server Available:` line.
}

export function registerModuleCommands(env: ConsoleEnv): void {
  const root = env.root;

  const boot = root.add('boot', { title: 'BOOT framework', usage: '[$C]', run: ({ out }) => bootStatus(env, out) });
  boot.add('status', { title: 'Show boot system status', run: ({ out }) => bootStatus(env, out) });

  const ota = root.add('ota', { title: 'OTA framework', usage: '[$C]', run: ({ out }) => otaStatus(env, out) });
  const status = ota.add('status', { title: 'Show OTA status', usage: '[nocheck]', run: ({ out }) => otaStatus(env, out) });
  status.add('nocheck', { title: '…skip check for available update', run: ({ out }) => otaStatus(env, out) });

  const module = root.add('module', { title: 'MODULE framework' });
  module.add('reset', {
    title: 'Reset module',
    run: ({ out }) => {
      out.puts('Resetting system...');
      env.later(env.options.rebootDelayMs, () => env.services.reboot());
    },
  });
}
