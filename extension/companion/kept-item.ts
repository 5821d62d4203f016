/**
 * One value the background keeps in the extension's own IndexedDB. Unlike storage.session it outlives a reload or an
 * update of the extension and a restart of the browser (both empty storage.session); unlike storage.local a chat page's
 * content script can neither read nor write it (a content script's IndexedDB is its page's origin's), so what the
 * background decides by — which page origins started which runs — cannot be written by a page it refuses.
 * Where the extension's IndexedDB cannot be opened (a Firefox private window) the value lives in `orElse`.
 */

export interface KeptItem<T> {
  getValue(): Promise<T>;
  setValue(value: T): Promise<void>;
}

const DATABASE = 'chatbridge-background';
const STORE = 'kept';

export function defineKeptItem<T>(name: string, orElse: KeptItem<T>, factory: IDBFactory | undefined = globalThis.indexedDB): KeptItem<T> {
  let opening: Promise<IDBDatabase | null> | null = null;
  const database = (): Promise<IDBDatabase | null> => {
    opening ??= new Promise<IDBDatabase | null>((resolve) => {
      if (!factory) return resolve(null);
      try {
        const request = factory.open(DATABASE, 1);
        request.onupgradeneeded = () => request.result.createObjectStore(STORE);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => resolve(null);
        request.onblocked = () => resolve(null);
      } catch {
        resolve(null);
      }
    });
    return opening;
  };
  const inStore = <R>(db: IDBDatabase, mode: IDBTransactionMode, use: (store: IDBObjectStore) => IDBRequest<R>): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      const transaction = db.transaction(STORE, mode);
      const request = use(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error ?? request.error);
      transaction.onabort = () => reject(transaction.error ?? new Error(`keeping ${name} was aborted`));
    });
  return {
    async getValue() {
      const db = await database();
      if (!db) return orElse.getValue();
      const value = await inStore(db, 'readonly', (store) => store.get(name) as IDBRequest<T | undefined>);
      return value === undefined ? orElse.getValue() : value;
    },
    async setValue(value) {
      const db = await database();
      if (!db) return orElse.setValue(value);
      await inStore(db, 'readwrite', (store) => store.put(value, name));
    },
  };
}
