/**
 * The vehicle's position on a Leaflet map, tiles from the server's configured URL. Without tiles
 * (no network, no tile URL) the box stays usable: the marker is drawn on an empty background and
 * a note says why there is no map.
 */
import 'leaflet/dist/leaflet.css';
import {
  circle,
  circleMarker,
  latLngBounds,
  layerGroup,
  map as leafletMap,
  polyline,
  tileLayer,
  type CircleMarker,
  type LayerGroup,
  type Map as LeafletMap,
} from 'leaflet';
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

/**
 * A map of drawings rather than one moving marker: a drive's route (a line with its start and end),
 * or the owner's places (each a circle of its radius), with a click that picks a point. Like
 * VehicleMap, it stays usable without tiles (a note says why the background is empty).
 */
export class DrawingMap {
  /** the map box (data-testid given by the caller) and the note below it */
  readonly el: HTMLElement;
  private readonly box: HTMLElement;
  private readonly canvas: HTMLElement;
  private readonly note: HTMLElement;
  private map: LeafletMap | null = null;
  private layer: LayerGroup | null = null;
  private tilesLoaded = 0;
  private ready: Promise<LeafletMap>;

  constructor(config: Promise<WebConfig>, label: string, testid: string, onPick?: (lat: number, lon: number) => void) {
    this.canvas = h('div', { class: 'map-canvas', role: 'img', 'aria-label': label });
    // below the map, not over it: the drawing stays whole on a phone
    this.note = h('p', { class: 'map-note', role: 'status', hidden: true });
    this.box = h('div', { class: 'map-box', 'data-testid': testid }, this.canvas);
    this.el = h('div', { class: 'drawing' }, this.box, this.note);
    this.ready = config.then((c) => {
      const map = leafletMap(this.canvas, { zoomControl: true, attributionControl: true }).setView([48.14, 11.58], 11);
      this.map = map;
      this.layer = layerGroup().addTo(map);
      if (c.tileUrl) {
        const tiles = tileLayer(c.tileUrl, { maxZoom: 19, attribution: safeAttribution(c.tileAttribution) });
        tiles.on('tileload', () => {
          this.tilesLoaded++;
          this.note.hidden = true;
        });
        tiles.on('tileerror', () => {
          if (this.tilesLoaded === 0) this.showNote('Map tiles could not be loaded (no connection to the tile server); the drawing is shown without them.');
        });
        tiles.addTo(map);
      } else {
        this.showNote('No map tiles are configured on the server; the drawing is shown without them.');
      }
      if (onPick) map.on('click', (ev) => onPick(ev.latlng.lat, ev.latlng.lng));
      return map;
    });
  }

  private showNote(text: string): void {
    setText(this.note, text);
    this.note.hidden = false;
  }

  /** A route: the line, a green start and a red end; the view fits it. */
  async showRoute(points: readonly { lat: number; lon: number }[], label: string): Promise<void> {
    const map = await this.ready;
    this.layer?.clearLayers();
    const ll = points.map((p) => [p.lat, p.lon] as [number, number]);
    this.box.dataset.points = String(ll.length);
    if (ll.length === 0) return this.showNote('This drive has no positions to draw.');
    const line = polyline(ll, { color: '#0b66c3', weight: 4, opacity: 0.85, className: 'route-line' }).bindTooltip(label);
    this.layer?.addLayer(line);
    const dot = (p: [number, number], color: string, what: string) =>
      circleMarker(p, { radius: 7, color: '#fff', weight: 2, fillColor: color, fillOpacity: 1 }).bindTooltip(what);
    this.layer?.addLayer(dot(ll[0]!, '#1f7a44', 'Start'));
    this.layer?.addLayer(dot(ll[ll.length - 1]!, '#b42318', 'End'));
    map.invalidateSize();
    map.fitBounds(latLngBounds(ll), { padding: [24, 24], maxZoom: 16 });
  }

  /** Circles of places (the selected one highlighted); `fit`: the view shows them all. */
  async showPlaces(list: readonly { id?: number; name: string; lat: number; lon: number; radius: number }[], selected: number | null, fit: boolean): Promise<void> {
    const map = await this.ready;
    this.layer?.clearLayers();
    this.box.dataset.circles = String(list.length);
    for (const p of list) {
      const on = p.id === selected;
      const c = circle([p.lat, p.lon], {
        radius: p.radius,
        color: on ? '#d9480f' : '#0b66c3',
        weight: on ? 3 : 2,
        fillOpacity: on ? 0.2 : 0.12,
        className: 'place-circle',
      }).bindTooltip(p.name || 'New place');
      this.layer?.addLayer(c);
      this.layer?.addLayer(circleMarker([p.lat, p.lon], { radius: 3, color: on ? '#d9480f' : '#0b66c3', fillOpacity: 1 }));
    }
    map.invalidateSize();
    if (fit && list.length) map.fitBounds(latLngBounds(list.map((p) => [p.lat, p.lon] as [number, number])).pad(0.3), { maxZoom: 15 });
  }

  /** Centres the view on a point (keeping the zoom, at least `zoom`). */
  async focus(lat: number, lon: number, zoom = 14): Promise<void> {
    const map = await this.ready;
    map.setView([lat, lon], Math.max(map.getZoom(), zoom));
  }

  /** The box became visible or changed size: Leaflet must measure it again. */
  resize(): void {
    requestAnimationFrame(() => this.map?.invalidateSize());
  }

  destroy(): void {
    void this.ready.then((m) => m.remove());
    this.map = null;
  }
}
