// First: the last workspace's cache starts opening while the rest is evaluated.
import './open-early.ts'
import { mount } from 'svelte'
import './app/theme.css'
import App from './App.svelte'

const target = document.getElementById('app')
if (!target) throw new Error('Outpost: #app is missing from index.html')
export default mount(App, { target })
