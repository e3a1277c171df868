/**
 * The vehicle's position on a Leaflet map, tiles from the server's configured URL. Without tiles
 * (no network, no tile URL) the box stays usable: the marker is drawn on an empty background and
 * a note says why there is no map.
 */
import 'leaflet/dist/leaflet.css';
import { circleMarker, map as leafletMap, tileLayer, type CircleMarker, type Map as LeafletMap } from 'leaflet';
import { h, setText } from './dom';
import type { WebConfig } from './types';

const ZOOM = 15;

/**
 * Leaflet shows the attribution as HTML: keep only text and http(s) links from the configured
 * attribution, everything else escaped.
 */
export function safeAttribution(html: string): string {
  const esc = (s: string) =>
    s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
  const doc = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
  const walk = (node: Node): string => {
    if (node.nodeType === Node.TEXT_NODE) return esc(node.textContent ?? '');
    if (!(node instanceof Element)) return '';
    const inner = [...node.childNodes].map(walk).join('');
    if (node.tagName === 'A') {
      const target = node.getAttribute('href') ?? '';
      if (/^https?:\/\//i.test(target)) return `<a href="${esc(target)}" target="_blank" rel="noopener noreferrer">${inner}</a>`;
    }
    return inner;
  };
  return [...doc.body.childNodes].map(walk).join('');
}

export class VehicleMap {
  /** the box (data-testid "map"): the map, or a placeholder before the first position */
  readonly el: HTMLElement;
  private readonly canvas: HTMLElement;
  private readonly note: HTMLElement;
  private map: LeafletMap | null = null;
  private marker: CircleMarker | null = null;
  private tilesLoaded = 0;

  constructor(
    private readonly config: Promise<WebConfig>,
    private readonly label: string,
  ) {
    this.canvas = h('div', { class: 'map-canvas', role: 'img', 'aria-label': `Map with the position of ${label}` });
    this.note = h('p', { class: 'map-note', role: 'status' }, 'No position reported yet.');
    this.el = h('div', { class: 'map-box', 'data-testid': 'map' }, this.canvas, this.note);
  }

  async setPosition(lat: number, lon: number): Promise<void> {
    if (!this.map) await this.create(lat, lon);
    if (!this.map || !this.marker) return;
    this.marker.setLatLng([lat, lon]);
    this.el.dataset.lat = String(lat);
    this.el.dataset.lon = String(lon);
    if (!this.map.getBounds().pad(-0.1).contains([lat, lon])) this.map.panTo([lat, lon]);
  }

  /** The box became visible (after a tab switch): Leaflet must measure it again. */
  resize(): void {
    requestAnimationFrame(() => this.map?.invalidateSize());
  }

  destroy(): void {
    this.map?.remove();
    this.map = null;
  }

  private showNote(text: string): void {
    setText(this.note, text);
    this.note.hidden = false;
  }

  private async create(lat: number, lon: number): Promise<void> {
    const config = await this.config;
    if (this.map) return; // created while waiting
    this.note.hidden = true;
    const map = leafletMap(this.canvas, { zoomControl: true, attributionControl: true }).setView([lat, lon], ZOOM);
    this.map = map;
    if (config.tileUrl) {
      const tiles = tileLayer(config.tileUrl, { maxZoom: 19, attribution: safeAttribution(config.tileAttribution) });
      tiles.on('tileload', () => {
        this.tilesLoaded++;
        this.note.hidden = true;
      });
      tiles.on('tileerror', () => {
        if (this.tilesLoaded === 0) this.showNote('Map tiles could not be loaded (no connection to the tile server). The marker shows the position.');
      });
      tiles.addTo(map);
    } else {
      this.showNote('No map tiles are configured on the server. The marker shows the position.');
    }
    this.marker = circleMarker([lat, lon], {
      radius: 9,
      color: '#fff',
      weight: 3,
      fillColor: '#0b66c3',
      fillOpacity: 1,
    })
      .bindTooltip(this.label)
      .addTo(map);
  }
}
